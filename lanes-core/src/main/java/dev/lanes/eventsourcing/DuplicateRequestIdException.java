package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NonRecoverableException;

/**
 * The aggregate already holds this request id: a stream of it (the command was processed before) or, from a store that
 * remembers refusals, the refusal its command got ({@link EventStore#recordRefusal}). Either way nothing was appended;
 * {@link EventStore#findRequest} says which.
 */
public final class DuplicateRequestIdException extends NonRecoverableException {
    private static final long serialVersionUID = 1L;

    private final transient AggregateId aggregateId;
    private final String requestId;

    private DuplicateRequestIdException(AggregateId aggregateId, String requestId, String message) {
        super(message);
        this.aggregateId = aggregateId;
        this.requestId = requestId;
    }

    /** The aggregate holds a stream of {@code requestId}. */
    public static DuplicateRequestIdException of(AggregateId aggregateId, String requestId) {
        return new DuplicateRequestIdException(
                aggregateId, requestId, "Duplicate request id '" + requestId + "' on " + aggregateId);
    }

    /** The aggregate refused a command of {@code requestId} by a business rule: nothing is stored under it. */
    public static DuplicateRequestIdException refusedEarlier(AggregateId aggregateId, String requestId) {
        return new DuplicateRequestIdException(
                aggregateId,
                requestId,
                "Duplicate request id '" + requestId + "' on " + aggregateId
                        + ": its command was refused earlier, so no stream is appended under it");
    }

    public AggregateId aggregateId() {
        return aggregateId;
    }

    public String requestId() {
        return requestId;
    }
}
