package dev.lanes.kafka;

import dev.lanes.event.OwnershipFence;
import java.util.ArrayDeque;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * What a consumer knows of one assigned partition: its fetched records not yet handed out, its offsets in the lanes,
 * whether it is paused. A new object per assignment, so a settlement that comes after the partition was revoked finds
 * {@link #live} false and is ignored. Only the consumer thread reads or writes it.
 */
final class PartitionState {
    final TopicPartition partition;
    final PartitionOffsets offsets = new PartitionOffsets();
    final ArrayDeque<Fetched<?>> buffered = new ArrayDeque<>();
    /** Records below this offset were in the partition when it was assigned here: an earlier owner may have had them. */
    final long redeliveryBelow;

    boolean live = true;
    boolean paused;
    /** A record was handed back: nothing more is handed out until the partition is read again from it. */
    boolean halted;
    /** Whether to read again from the rejected record once nothing is in flight (not when the consumer stops). */
    boolean rewind;
    /** The assignment's hooks failed: nothing is handed out until they ran (retried by the consumer thread). */
    boolean awaitingHooks;

    long lastCommitted = -1;

    /**
     * What this assignment claimed ({@code OwnershipClaims}), carried by every record handed out from it; {@code null}
     * until the claim passed (the partition awaits its hooks meanwhile).
     */
    @Nullable
    OwnershipFence fence;

    /** Another instance claimed the partition since: nothing more is handed out here until Kafka takes it back. */
    boolean ownershipLost;

    PartitionState(TopicPartition partition, long redeliveryBelow) {
        this.partition = partition;
        this.redeliveryBelow = redeliveryBelow;
    }

    @Override
    public String toString() {
        return partition + " " + offsets + (paused ? " paused" : "") + (halted ? " halted" : "")
                + (awaitingHooks ? " awaiting its assignment hooks" : "")
                + (ownershipLost ? " claimed by another instance" : "");
    }
}
