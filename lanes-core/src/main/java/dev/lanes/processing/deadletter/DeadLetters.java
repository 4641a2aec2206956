package dev.lanes.processing.deadletter;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Require;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * The parked sequences of a running event side, per processor and aggregate: list them, retry them, skip their head.
 *
 * <p>A retry runs in the aggregate's lane of that processor, like any stream, so it is ordered with the streams the bus
 * delivers: streams that arrive during a retry wait for it, then are handled if the sequence is gone, or parked behind
 * it if not. A retry delivers the letters head first, one attempt each, and stops at the first that fails again: that
 * one stays the head, with its new reason. A skip drops the head (logged at WARN, naming it), then delivers the rest
 * as a retry does.
 *
 * <p>A retry or skip issued before the event side runs waits for its start; one issued after its stop, or still queued
 * when it stops, errors with {@link IllegalStateException}.
 */
public interface DeadLetters {

    /**
     * One {@code DeadLetters} over several that share {@code queue} (a runtime's event side and its tracking processors):
     * sequences and letters are read from the queue; a retry or skip goes to the part that has the processor it names.
     *
     * @param owner names the result in errors and logs
     * @throws IllegalArgumentException naming the processor if two parts have a processor of the same name (their
     *     sequences in the queue would be one)
     */
    static DeadLetters combine(String owner, DeadLetterQueue queue, List<DeadLetters> parts) {
        return LaneDeadLetters.combined(
                Require.notBlank(owner, "owner"), Objects.requireNonNull(queue, "queue"), List.copyOf(parts));
    }

    /** The names of the processors whose sequences {@link #retry} and {@link #skip} run. */
    Set<String> processors();

    /** Every parked sequence, ordered by processor, then aggregate. */
    Mono<List<DeadLetterSequence>> sequences();

    /** One sequence's letters, head first; empty when nothing is parked. */
    Mono<List<DeadLetter>> list(String processor, AggregateId aggregateId);

    /**
     * Delivers the sequence's letters in order through the processor's lane, stopping at the first that fails again.
     *
     * @throws IllegalArgumentException (as the {@code Mono}'s error) if no processor has that name, or it does not
     *     receive that aggregate's type
     */
    Mono<RetryOutcome> retry(String processor, AggregateId aggregateId);

    /**
     * Drops the sequence's head without delivering it, then delivers the rest as {@link #retry} does.
     *
     * @throws IllegalArgumentException (as the {@code Mono}'s error) as for {@link #retry}
     */
    Mono<RetryOutcome> skip(String processor, AggregateId aggregateId);
}
