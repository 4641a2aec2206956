package dev.lanes.processing;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.MessageExchange;

/**
 * A message in its processor's lane that counts the attempts the lane makes, so the last one can park it as a dead
 * letter (see {@link DeadLetterSequencer}) before it is acknowledged to its source; everything else goes to the message
 * as delivered. Its lane runs one attempt at a time, and hands the lane from one attempt to the next through a worker
 * queue or a scheduled retry, which orders the count's updates.
 *
 * @param <M> the message as delivered
 */
abstract class Attempted<M> implements MessageExchange<Object> {
    final MessageExchange<M> delivered;
    private int attempts;
    /** Written by the lane's handler before its {@code Mono} completes, read by the dispatcher after. */
    private volatile boolean setAside;
    /** Set by the lane's handler while the dead-letter queue stores the message; read by the handler-timeout sweep. */
    private volatile boolean storing;

    Attempted(MessageExchange<M> delivered) {
        this.delivered = delivered;
    }

    /** The message went to the dead-letter queue instead of the processor: the dispatcher counts it as parked. */
    void markSetAside() {
        setAside = true;
    }

    @Override
    public boolean setAside() {
        return setAside;
    }

    /** While the queue stores the message (retried until it is stored), the lane's handler timeout does not apply. */
    void storing(boolean storing) {
        this.storing = storing;
    }

    @Override
    public boolean handlerTimed() {
        return !storing;
    }

    /** Counts one more attempt; returns its number, from 1. */
    int nextAttempt() {
        return ++attempts;
    }

    @Override
    public AggregateId aggregateId() {
        return delivered.aggregateId();
    }

    @Override
    public void acknowledge() {
        delivered.acknowledge();
    }

    @Override
    public void reject(Throwable reason) {
        delivered.reject(reason);
    }

    @Override
    public boolean mayBeRedelivered() {
        return delivered.mayBeRedelivered();
    }

    @Override
    public String toString() {
        return delivered.toString();
    }
}
