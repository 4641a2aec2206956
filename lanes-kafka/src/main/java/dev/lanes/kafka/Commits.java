package dev.lanes.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When and what a {@link ConsumerLoop} commits: each partition up to its lowest record not settled ({@link
 * PartitionOffsets#committable()}), and only when that moved. While polling, asynchronously once per {@code
 * commitInterval} (a failed commit is retried at the next interval); before partitions leave (revoked, or the loop
 * closes), synchronously. Nothing is committed once the loop is forced. Consumer thread only.
 */
final class Commits {
    private static final Logger log = LoggerFactory.getLogger(Commits.class);

    private final String owner;
    private final Duration interval;
    private final Duration syncTimeout;
    private final BooleanSupplier forced;
    private long nextAt = System.nanoTime();

    /**
     * @param owner the loop's name, for the logs
     * @param interval how often offsets are committed while polling
     * @param syncTimeout how long a synchronous commit may block
     * @param forced whether the loop is forced (then nothing is committed)
     */
    Commits(String owner, Duration interval, Duration syncTimeout, BooleanSupplier forced) {
        this.owner = owner;
        this.interval = interval;
        this.syncTimeout = syncTimeout;
        this.forced = forced;
    }

    /** The interval counts from now: the loop starts polling. */
    void start() {
        nextAt = System.nanoTime();
    }

    /** Commits asynchronously what moved, once the interval ran out. */
    void ifDue(Consumer<String, byte[]> kafka, Assignment assignment) {
        long now = System.nanoTime();
        if (now - nextAt < 0) {
            return;
        }
        nextAt = now + interval.toNanos();
        Map<TopicPartition, OffsetAndMetadata> due = due(assignment.all());
        if (due.isEmpty()) {
            return;
        }
        kafka.commitAsync(due, (committed, error) -> {
            if (error != null) {
                log.debug("{}: commit of {} failed; retried at the next interval: {}", owner, due, error.toString());
                due.keySet().forEach(tp -> {
                    PartitionState partition = assignment.get(tp);
                    if (partition != null) {
                        partition.lastCommitted = -1;
                    }
                });
            }
        });
    }

    /** Commits synchronously what moved in {@code states}, unless forced; a failure is logged. */
    void now(Consumer<String, byte[]> kafka, Collection<PartitionState> states) {
        if (forced.getAsBoolean()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> due = due(states);
        if (due.isEmpty()) {
            return;
        }
        try {
            kafka.commitSync(due, syncTimeout);
        } catch (WakeupException woken) {
            if (!forced.getAsBoolean()) {
                kafka.commitSync(due, syncTimeout);
            }
        } catch (RuntimeException error) {
            log.warn(
                    "{}: committing {} failed; the next owner reads from the last commit: {}",
                    owner,
                    due,
                    error.toString());
        }
    }

    /** The offsets that moved since their last commit, noted as committed. */
    private static Map<TopicPartition, OffsetAndMetadata> due(Collection<PartitionState> states) {
        Map<TopicPartition, OffsetAndMetadata> due = new HashMap<>();
        for (PartitionState partition : states) {
            long offset = partition.offsets.committable();
            if (offset >= 0 && offset != partition.lastCommitted) {
                due.put(partition.partition, new OffsetAndMetadata(offset));
                partition.lastCommitted = offset;
            }
        }
        return due;
    }
}
