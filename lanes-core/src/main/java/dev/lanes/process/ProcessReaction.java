package dev.lanes.process;

/**
 * How a process manager reacts to an input (an event, or one of its deadlines): returns its next state and records its
 * commands, deadlines and end on the {@link ProcessContext}.
 *
 * <p>Runs in the instance's command lane, one input at a time: it must not block, and should be a pure function of its
 * arguments (plus {@link ProcessContext#now()}): what it records takes effect only once its result was stored, and a
 * failure (a thrown exception) stores nothing and is retried by the lane, then parked.
 *
 * @param <S> the process state
 * @param <I> the input
 */
@FunctionalInterface
public interface ProcessReaction<S, I> {

    /** The state after {@code input}; never {@code null} (return {@code state} when nothing changes). */
    S react(S state, I input, ProcessContext context);
}
