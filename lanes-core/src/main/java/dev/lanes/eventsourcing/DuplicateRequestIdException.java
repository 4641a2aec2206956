package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NonRecoverableException;

/** The aggregate already holds a stream for this request id: the command was processed before. */
public final class DuplicateRequestIdException extends NonRecoverableException {
    private static final long serialVersionUID = 1L;

    private final transient AggregateId aggregateId;
    private final String requestId;

    private DuplicateRequestIdException(AggregateId aggregateId, String requestId) {
        super("Duplicate request id '" + requestId + "' on " + aggregateId);
        this.aggregateId = aggregateId;
        this.requestId = requestId;
    }

    public static DuplicateRequestIdException of(AggregateId aggregateId, String requestId) {
        return new DuplicateRequestIdException(aggregateId, requestId);
    }

    public AggregateId aggregateId() {
        return aggregateId;
    }

    public String requestId() {
        return requestId;
    }
}
