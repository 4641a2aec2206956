package dev.lanes.processing.deadletter;

import dev.lanes.dispatch.MessageExchange;
import dev.lanes.event.OwnershipFence;
import dev.lanes.event.OwnershipLostException;
import dev.lanes.internal.Internal;
import dev.lanes.internal.exchange.AttemptedExchange;
import dev.lanes.messaging.DomainEventStream;
import org.jspecify.annotations.Nullable;

/**
 * A stream from the bus in its processor's lane (see {@link AttemptedExchange}), with the ownership fence its parkings carry.
 */
@Internal
public final class AttemptedStream extends AttemptedExchange<DomainEventStream, Object> {
    private final OwnershipFence fence;
    /** As {@link #setAside}: the queue refused to park the stream because another instance owns its partition now. */
    private volatile @Nullable OwnershipLostException ownershipLost;

    public AttemptedStream(MessageExchange<DomainEventStream> delivered) {
        super(delivered);
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
        markSetAside();
    }

    DomainEventStream stream() {
        return delivered.message();
    }

    @Override
    public Object message() {
        return delivered.message();
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
}
