package dev.lanes.event;

import dev.lanes.dispatch.MessageExchange;

/**
 * What an instance holds for the unit of work a message came from, so that a write it makes for that message (parking
 * it as a dead letter) can be refused once another instance took the unit over. A bus whose work moves between
 * instances (Kafka: a consumer group's topic partition) takes a new {@link Epoch} for each unit when it is assigned to
 * this instance ({@link DomainEventBus#claimAssignments}) and hands it out with every message of that assignment; a
 * store shared by the instances checks it in the same transaction as the write. {@link #NONE} everywhere else: work
 * that never moves (the in-memory bus), retries and tools.
 */
public sealed interface OwnershipFence permits OwnershipFence.Unfenced, OwnershipFence.Epoch {

    /** No fence: the write is not checked. */
    OwnershipFence NONE = Unfenced.INSTANCE;

    /** The fence that {@code exchange} carries: its own if it is {@link Fenced}, else {@link #NONE}. */
    static OwnershipFence of(MessageExchange<?> exchange) {
        return exchange instanceof Fenced fenced ? fenced.fence() : NONE;
    }

    /** A message exchange from a bus that fences its units of work. */
    interface Fenced {

        /** The fence taken when this message's unit of work was assigned to this instance; any thread. */
        OwnershipFence fence();
    }

    /** The value of {@link #NONE}. */
    enum Unfenced implements OwnershipFence {
        INSTANCE;

        @Override
        public String toString() {
            return "no ownership fence";
        }
    }

    /**
     * The epoch an instance took for one partition of one consumer group's topic: every assignment of that partition,
     * to any instance, takes a higher one. A write that carries it is refused ({@link OwnershipLostException}) once
     * the partition's current epoch is another.
     *
     * @param group the consumer group (one per event processor)
     * @param epoch from 1
     */
    record Epoch(String group, String topic, int partition, long epoch) implements OwnershipFence {
        public Epoch {
            requireNotBlank(group, "group");
            requireNotBlank(topic, "topic");
            if (partition < 0) {
                throw new IllegalArgumentException("partition must not be negative: " + partition);
            }
            if (epoch < 1) {
                throw new IllegalArgumentException("epoch must be positive: " + epoch);
            }
        }

        /** {@code group/topic-partition}, as in messages. */
        public String partitionName() {
            return group + "/" + topic + "-" + partition;
        }

        @Override
        public String toString() {
            return partitionName() + " epoch " + epoch;
        }

        private static void requireNotBlank(String value, String name) {
            if (value.isBlank()) {
                throw new IllegalArgumentException(name + " must not be blank: '" + value + "'");
            }
        }
    }
}
