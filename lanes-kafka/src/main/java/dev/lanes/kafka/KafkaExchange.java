package dev.lanes.kafka;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.event.OwnershipFence;

/**
 * One record on its way through a lane. Settling it hands the offset to the consumer thread (which alone touches the
 * Kafka consumer); a rejection holds the partition's commit point below it and makes the consumer read it again. It
 * carries the {@link OwnershipFence} its partition's assignment claimed.
 *
 * @param <M> the message type
 */
final class KafkaExchange<M> implements MessageExchange<M>, OwnershipFence.Fenced {
    final M message;
    final AggregateId aggregateId;
    final PartitionState partition;
    final long offset;
    private final boolean redelivery;
    private final OwnershipFence fence;
    private final ConsumerLoop<M> loop;

    KafkaExchange(
            M message,
            AggregateId aggregateId,
            PartitionState partition,
            long offset,
            boolean redelivery,
            OwnershipFence fence,
            ConsumerLoop<M> loop) {
        this.message = message;
        this.aggregateId = aggregateId;
        this.partition = partition;
        this.offset = offset;
        this.redelivery = redelivery;
        this.fence = fence;
        this.loop = loop;
    }

    @Override
    public M message() {
        return message;
    }

    @Override
    public AggregateId aggregateId() {
        return aggregateId;
    }

    @Override
    public void acknowledge() {
        loop.settled(this);
    }

    @Override
    public void reject(Throwable reason) {
        loop.rejected(this, reason);
    }

    /** Whether an earlier owner of the partition may have handled it (it was in the partition when it was assigned). */
    @Override
    public boolean mayBeRedelivered() {
        return redelivery;
    }

    @Override
    public OwnershipFence fence() {
        return fence;
    }

    @Override
    public String toString() {
        return "KafkaExchange[" + partition.partition + "@" + offset + ", " + message + "]";
    }
}
