package dev.lanes.processing;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.event.OwnershipFence;
import dev.lanes.event.OwnershipLostException;
import dev.lanes.messaging.DomainEventStream;
import org.jspecify.annotations.Nullable;

/**
 * A stream from the bus, counting the attempts its lane makes, so the last one can park it as a dead letter before the
 * stream is acknowledged. Its lane runs one attempt at a time, and hands the lane from one attempt to the next through a
 * worker queue or a scheduled retry, which orders the count's updates.
 */
final class AttemptedStream implements MessageExchange<Object> {
    private final MessageExchange<DomainEventStream> delivered;
    private final OwnershipFence fence;
    private int attempts;
    /** Written by the lane's handler before its {@code Mono} completes, read by the dispatcher after. */
    private volatile boolean setAside;
    /** As {@link #setAside}: the queue refused to park the stream because another instance owns its partition now. */
    private volatile @Nullable OwnershipLostException ownershipLost;
    /** Set by the lane's handler while the dead-letter queue stores the stream; read by the handler-timeout sweep. */
    private volatile boolean storing;

    AttemptedStream(MessageExchange<DomainEventStream> delivered) {
        this.delivered = delivered;
        this.fence = OwnershipFence.of(delivered);
    }

    /** What this instance holds for the stream's partition; every parking of the stream carries it. */
    OwnershipFence fence() {
        return fence;
    }

    /**
     * The stream was neither handled nor parked: another instance owns its partition now and reads it again. The
     * dispatcher counts it as set aside, and its acknowledgement hands it back to its source instead, so this instance
     * never acknowledges (commits) it.
     */
    void ownershipLost(OwnershipLostException lost) {
        ownershipLost = lost;
        setAside = true;
    }

    DomainEventStream stream() {
        return delivered.message();
    }

    /** The stream went to the dead-letter queue instead of the processor: the dispatcher counts it as parked. */
    void markSetAside() {
        setAside = true;
    }

    @Override
    public boolean setAside() {
        return setAside;
    }

    /** While the queue stores the stream (retried until it is stored), the lane's handler timeout does not apply. */
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
    public Object message() {
        return delivered.message();
    }

    @Override
    public AggregateId aggregateId() {
        return delivered.aggregateId();
    }

    @Override
    public void acknowledge() {
        OwnershipLostException lost = ownershipLost;
        if (lost == null) {
            delivered.acknowledge();
        } else {
            delivered.reject(lost);
        }
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
