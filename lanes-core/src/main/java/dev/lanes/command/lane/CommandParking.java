package dev.lanes.command.lane;

import dev.lanes.messaging.CommandMessage;
import reactor.core.publisher.Mono;

/**
 * Where a {@link CommandDispatcher} parks the commands of one aggregate type whose retries ran out, and whether an
 * aggregate's later commands wait behind them. {@code Lanes} wires one over its dead-letter queue ({@code
 * dev.lanes.processing.deadletter.CommandDeadLetters}); a dispatcher built without one keeps such commands in its parking lot, in
 * memory, and holds nothing.
 *
 * <p><b>Threads and order.</b> Every method is called in the lane of the command's aggregate, one command at a time per
 * aggregate: {@link #holds} answers from memory without blocking; the {@code Mono}s do their I/O elsewhere and are
 * subscribed in the lane, which waits for them, so the parking of one aggregate's commands is in their order.
 */
public interface CommandParking {

    /**
     * The header a command carries when it is a parked command sent again by a retry of its sequence: it runs although
     * its sequence is parked (it is that sequence's head), and is not parked again when it fails (the retry keeps its
     * letter as the head, with the new reason).
     */
    String RETRY_HEADER = "lanes.dead-letter-retry";

    /** The name the aggregate type's sequences are kept under in the dead-letter queue ({@code commands:<type>}). */
    String processor();

    /** Whether {@code command} must wait behind a parked sequence of its aggregate. From memory; in the lane. */
    boolean holds(CommandMessage command);

    /**
     * Parks {@code command} behind its aggregate's parked sequence without running it. Completes with {@code true} once
     * stored, or {@code false}, storing nothing, when the sequence is gone meanwhile (then the command runs).
     */
    Mono<Boolean> parkBehind(CommandMessage command);

    /**
     * Parks {@code command}, whose last attempt failed with {@code error}, at the end of its aggregate's sequence
     * (creating it), trying again until it is stored. Completes once stored; errors with {@link
     * UnsupportedOperationException} if the queue cannot park commands (the dispatcher then hands the command to its
     * parking lot).
     *
     * @param attempts how many times the command ran
     */
    Mono<Void> park(CommandMessage command, Throwable error, int attempts);
}
