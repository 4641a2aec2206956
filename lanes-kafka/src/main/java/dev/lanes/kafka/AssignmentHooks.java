package dev.lanes.kafka;

import dev.lanes.event.OwnershipFence;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What runs before an assigned partition hands out its records: its ownership claim, then the hooks given as {@code
 * beforeDelivery}, in order (see {@link ConsumerLoop} for what they promise). When a claim or a hook throws, the
 * partitions that wait for them are held ({@link PartitionState#awaitingHooks}), and all of it runs again after a
 * backoff of {@link #RETRY_FIRST} doubling to {@link #RETRY_MAX}, until it all ran. Consumer thread only.
 */
final class AssignmentHooks {
    private static final Logger log = LoggerFactory.getLogger(AssignmentHooks.class);
    static final Duration RETRY_FIRST = Duration.ofMillis(100);
    static final Duration RETRY_MAX = Duration.ofSeconds(5);

    private final String owner;
    private final List<Runnable> beforeDelivery;
    private final Function<TopicPartition, OwnershipFence> claims;

    /** Whether the hooks failed and partitions wait for them. */
    private boolean failed;

    /** When the hooks that failed run again ({@code System.nanoTime}). */
    private long retryAt;

    /** The wait after their next failure. */
    private Duration backoff = RETRY_FIRST;

    AssignmentHooks(String owner, List<Runnable> beforeDelivery, Function<TopicPartition, OwnershipFence> claims) {
        this.owner = owner;
        this.beforeDelivery = beforeDelivery;
        this.claims = claims;
    }

    /**
     * In {@code onPartitionsAssigned}: claims and runs the hooks for {@code all} the partitions; when one throws, the
     * newly {@code assigned} ones wait for the retry (those of an earlier assignment already wait).
     */
    void assigned(Collection<TopicPartition> assigned, List<PartitionState> added, Collection<PartitionState> all) {
        if (run(assigned, all)) { // the records are handed out only after this callback returned
            ran(all); // the hooks are the same for every assignment: partitions still waiting wait no more
        } else {
            added.forEach(partition -> partition.awaitingHooks = true);
            hold();
        }
    }

    /** Runs the hooks again once their backoff ran out, while partitions wait for them. */
    void retryIfDue(Collection<PartitionState> all) {
        if (!failed || System.nanoTime() - retryAt < 0) {
            return;
        }
        List<TopicPartition> waiting = new ArrayList<>();
        for (PartitionState partition : all) {
            if (partition.awaitingHooks) {
                waiting.add(partition.partition);
            }
        }
        if (waiting.isEmpty()) { // revoked meanwhile
            ran(all);
        } else if (run(waiting, all)) {
            log.info("{}: the assignment hooks ran; handing out the records of {}", owner, waiting);
            ran(all);
        } else {
            hold();
        }
    }

    private void ran(Collection<PartitionState> all) {
        for (PartitionState partition : all) {
            partition.awaitingHooks = false;
        }
        failed = false;
        backoff = RETRY_FIRST;
    }

    /**
     * Claims every partition not claimed yet, then runs every hook in order; {@code false}, after logging it, at the
     * first that throws.
     */
    private boolean run(Collection<TopicPartition> assigned, Collection<PartitionState> all) {
        if (!claimUnclaimed(assigned, all)) {
            return false;
        }
        for (Runnable hook : beforeDelivery) {
            try {
                hook.run();
            } catch (RuntimeException error) {
                log.warn(
                        "{}: {} failed before the records of {} were handed out; they are held, and the hooks run"
                                + " again in {} ms: {}",
                        owner,
                        hook,
                        assigned,
                        backoff.toMillis(),
                        error.toString());
                return false;
            }
        }
        return true;
    }

    /**
     * Claims the partitions whose claim did not pass yet: this assignment's, and those an earlier one still holds (the
     * hooks run for all of them at once).
     */
    private boolean claimUnclaimed(Collection<TopicPartition> assigned, Collection<PartitionState> all) {
        for (PartitionState partition : all) {
            if (partition.fence != null) {
                continue;
            }
            try {
                partition.fence = claims.apply(partition.partition);
            } catch (RuntimeException error) {
                log.warn(
                        "{}: claiming {} failed before the records of {} were handed out; they are held, and the"
                                + " claims and hooks run again in {} ms: {}",
                        owner,
                        partition.partition,
                        assigned,
                        backoff.toMillis(),
                        error.toString());
                return false;
            }
        }
        return true;
    }

    private void hold() {
        failed = true;
        retryAt = System.nanoTime() + backoff.toNanos();
        Duration doubled = backoff.multipliedBy(2);
        backoff = doubled.compareTo(RETRY_MAX) > 0 ? RETRY_MAX : doubled;
    }
}
