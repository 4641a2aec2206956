package dev.lanes.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * The partitions a {@link ConsumerLoop} owns now, each with its {@link PartitionState}: a new state per assignment, and
 * a partition that leaves (revoked, lost, or the loop stops) is marked no longer {@link PartitionState#live live}, so
 * that a settlement that comes after it is ignored. Consumer thread only; {@link #view()} is a snapshot any thread may
 * read.
 */
final class Assignment {
    private final Map<TopicPartition, PartitionState> partitions = new LinkedHashMap<>();
    private volatile Set<TopicPartition> view = Set.of();

    /**
     * Takes {@code assigned} on, each read from its committed offset; its records below its end offset in {@code ends}
     * (every record when unknown) were in it already, so an earlier owner may have handled them.
     *
     * @return the new states, in {@code assigned} order
     */
    List<PartitionState> take(Collection<TopicPartition> assigned, Map<TopicPartition, Long> ends) {
        for (TopicPartition partition : assigned) {
            partitions.put(partition, new PartitionState(partition, ends.getOrDefault(partition, Long.MAX_VALUE)));
        }
        view = Set.copyOf(partitions.keySet());
        return states(assigned);
    }

    /** The states of those of {@code partitionsOf} owned now, in that order. */
    List<PartitionState> states(Collection<TopicPartition> partitionsOf) {
        List<PartitionState> states = new ArrayList<>();
        for (TopicPartition partition : partitionsOf) {
            PartitionState state = partitions.get(partition);
            if (state != null) {
                states.add(state);
            }
        }
        return states;
    }

    /** The state of {@code partition} if it is owned now. */
    @Nullable
    PartitionState get(TopicPartition partition) {
        return partitions.get(partition);
    }

    /** Every partition owned now, in assignment order (a live view: do not keep it across a rebalance). */
    Collection<PartitionState> all() {
        return partitions.values();
    }

    /** Lets {@code gone} go: their settlements are ignored from now on. */
    void forget(Collection<TopicPartition> gone) {
        for (TopicPartition partition : gone) {
            PartitionState state = partitions.remove(partition);
            if (state != null) {
                state.live = false;
            }
        }
        view = Set.copyOf(partitions.keySet());
    }

    /** Lets every partition go, as the loop leaves the group: their settlements are ignored from now on. */
    void forgetAll() {
        partitions.values().forEach(partition -> partition.live = false);
        partitions.clear();
    }

    /** The partitions owned now (a snapshot); any thread. */
    Set<TopicPartition> view() {
        return view;
    }
}
