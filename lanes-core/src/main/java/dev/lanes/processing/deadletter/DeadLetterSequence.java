package dev.lanes.processing.deadletter;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Require;
import java.util.Objects;

/**
 * The parked streams of one aggregate for one processor: the sequence's key and how many letters it holds.
 *
 * @param processor the processor
 * @param aggregateId the aggregate
 * @param size letters parked, at least 1 (an empty sequence does not exist)
 */
public record DeadLetterSequence(String processor, AggregateId aggregateId, int size) {

    public DeadLetterSequence {
        Require.notBlank(processor, "processor");
        Objects.requireNonNull(aggregateId, "aggregateId");
        Require.positive(size, "size");
    }
}
