package dev.lanes.internal.exchange;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.MessageExchange;

/**
 * A message in its lane that counts the attempts the lane makes, so that the last one can park it in a dead-letter
 * queue before it is acknowledged to its source (the event side's {@code DeadLetterSequencer}, the command side's
 * parking); everything else goes to the exchange as delivered. Its lane runs one attempt at a time, and hands the lane
 * from one attempt to the next through a worker queue or a scheduled retry, which orders the count's updates.
 *
 * @param <D> the message as delivered
 * @param <M> the message as the lane's handler sees it
 */
public abstract class AttemptedExchange<D, M> implements MessageExchange<M> {
    /** The exchange as its source delivered it. */
    protected final MessageExchange<D> delivered;

    private int attempts;
    /** Written by the lane's handler before its {@code Mono} completes, read by the dispatcher after. */
    private volatile boolean setAside;
    /** Set by the lane's handler while the dead-letter queue stores the message; read by the handler-timeout sweep. */
    private volatile boolean storing;

    protected AttemptedExchange(MessageExchange<D> delivered) {
        this.delivered = delivered;
    }

    /** The message went to the dead-letter queue instead of its handler: the dispatcher counts it as parked. */
    public final void markSetAside() {
        setAside = true;
    }

    @Override
    public final boolean setAside() {
        return setAside;
    }

    /** While the queue stores the message (tried until it is stored), the lane's handler timeout does not apply. */
    public final void storing(boolean storing) {
        this.storing = storing;
    }

    @Override
    public final boolean handlerTimed() {
        return !storing;
    }

    /** Counts one more attempt; returns its number, from 1. */
    public final int nextAttempt() {
        return ++attempts;
    }

    /** Whether no attempt ran yet: the first time the lane sees the message. */
    public final boolean untried() {
        return attempts == 0;
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
