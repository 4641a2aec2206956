package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NonRecoverableException;

/** An aggregate with this id already exists: version 1 is taken. Retrying cannot help. */
public final class DuplicateAggregateIdException extends NonRecoverableException {
    private static final long serialVersionUID = 1L;

    private final transient AggregateId aggregateId;

    private DuplicateAggregateIdException(AggregateId aggregateId) {
        super("Duplicate aggregate id: " + aggregateId + " already exists (version 1 is taken)");
        this.aggregateId = aggregateId;
    }

    public static DuplicateAggregateIdException of(AggregateId aggregateId) {
        return new DuplicateAggregateIdException(aggregateId);
    }

    public AggregateId aggregateId() {
        return aggregateId;
    }
}
