package dev.lanes.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * Pauses a partition ({@code consumer.pause}) whose records in the lanes reach {@code maxUnsettledPerPartition}, whose
 * fetched records wait beyond {@code maxBufferedPerPartition}, whose held records reach eight times the first bound,
 * that was halted (a record was handed back) or that awaits its assignment hooks; resumes it once none of that holds,
 * with the counts down to half (hysteresis). The other partitions go on. Consumer thread only; {@link #paused()} is a
 * snapshot any thread may read.
 */
final class Backpressure {
    private final int maxUnsettled;
    private final int maxBuffered;
    private volatile Set<TopicPartition> pausedView = Set.of();

    Backpressure(KafkaOptions options) {
        this.maxUnsettled = options.maxUnsettledPerPartition();
        this.maxBuffered = options.maxBufferedPerPartition();
    }

    /** Pauses and resumes what the bounds say; whether any partition is paused now. */
    boolean apply(Consumer<String, byte[]> kafka, Collection<PartitionState> partitions) {
        List<TopicPartition> pause = new ArrayList<>();
        List<TopicPartition> resume = new ArrayList<>();
        boolean anyPaused = false;
        for (PartitionState partition : partitions) {
            if (!partition.paused && mustPause(partition)) {
                partition.paused = true;
                pause.add(partition.partition);
            } else if (partition.paused && mayResume(partition)) {
                partition.paused = false;
                resume.add(partition.partition);
            }
            anyPaused |= partition.paused;
        }
        if (!pause.isEmpty()) {
            kafka.pause(pause);
        }
        if (!resume.isEmpty()) {
            kafka.resume(resume);
        }
        if (!pause.isEmpty() || !resume.isEmpty()) {
            refresh(kafka);
        }
        return anyPaused;
    }

    private boolean mustPause(PartitionState partition) {
        return partition.halted
                || partition.awaitingHooks
                || partition.offsets.inFlight() >= maxUnsettled
                || partition.buffered.size() >= maxBuffered
                || partition.offsets.held() >= 8 * maxUnsettled;
    }

    private boolean mayResume(PartitionState partition) {
        return !partition.halted
                && !partition.awaitingHooks
                && partition.offsets.inFlight() <= maxUnsettled / 2
                && partition.buffered.size() <= maxBuffered / 2
                && partition.offsets.held() <= 4 * maxUnsettled;
    }

    /** Reads the paused partitions again (after some were revoked); none without a consumer. */
    void refresh(@Nullable Consumer<String, byte[]> kafka) {
        pausedView = kafka == null ? Set.of() : Set.copyOf(kafka.paused());
    }

    /** The partitions paused now (a snapshot). */
    Set<TopicPartition> paused() {
        return pausedView;
    }
}
