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
}
