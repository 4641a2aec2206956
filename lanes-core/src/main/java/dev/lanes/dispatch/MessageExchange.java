package dev.lanes.dispatch;

import dev.lanes.api.AggregateId;

/**
 * One message on its way through a dispatcher, with the way back to its source.
 *
 * <p>The dispatcher settles every admitted exchange exactly once: {@link #acknowledge()} when it was handled or parked,
 * {@link #reject(Throwable)} when it was not handled and the source must take it back (redeliver it, or fail its
 * sender). Both are called from dispatcher threads and must not block.
 *
 * @param <M> the message type
 */
public interface MessageExchange<M> {

    M message();

    /** The aggregate the message is for; decides its lane. */
    AggregateId aggregateId();

    /** The message was handled, or parked with its reason: the source may forget it. */
    void acknowledge();

    /** The message was not handled; {@code reason} says why (overload, stop, cancellation). */
    void reject(Throwable reason);

    /**
     * Whether this message may have been handled before: a durable bus that redelivers (after a crash, or a rebalance
     * that moved the message's partition) says so, and the command side then asks the event store for the command's
     * request id before deciding again. {@code false} by default: a bus that never redelivers.
     */
    default boolean mayBeRedelivered() {
        return false;
    }

    /**
     * Whether the handler put this message aside instead of handling it (a dead-letter queue of its own, such as the
     * event side's sequenced dead letters): read by the dispatcher when the handler completed, which then counts the
     * exchange as {@link Outcome#PARKED} instead of {@link Outcome#HANDLED} in its stats and metrics. {@code false} by
     * default; a wrapper that lets its handler park sets it before the handler's {@code Mono} completes.
     */
    default boolean setAside() {
        return false;
    }

    /**
     * Whether the lane's handler timeout ({@link LaneSettings#handlerTimeout()}) applies to the attempt running now.
     * {@code true} by default. A wrapper whose handler has finished with the user's code and now waits for a durable
     * store to keep the message aside (the event side's dead letters, retried until stored: the message must not be
     * acknowledged before) answers {@code false} meanwhile: a timeout there would only move the message to a weaker
     * place. Read by the handler-timeout sweep on any thread: back it with a volatile field.
     */
    default boolean handlerTimed() {
        return true;
    }
}
