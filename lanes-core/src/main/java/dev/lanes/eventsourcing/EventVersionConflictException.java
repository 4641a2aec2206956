package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import dev.lanes.api.RecoverableException;

/** Another writer appended the version first. Recoverable: reload the aggregate and decide again. */
public final class EventVersionConflictException extends RecoverableException {
    private static final long serialVersionUID = 1L;

    private final transient AggregateId aggregateId;
    private final int expectedVersion;
    private final int actualVersion;

    private EventVersionConflictException(AggregateId aggregateId, int expectedVersion, int actualVersion) {
        super("Event version conflict on " + aggregateId + ": appending version " + expectedVersion
                + " but the stored version is " + actualVersion);
        this.aggregateId = aggregateId;
        this.expectedVersion = expectedVersion;
        this.actualVersion = actualVersion;
    }

    /** Appending {@code appending} when the store already holds {@code stored}. */
    public static EventVersionConflictException taken(AggregateId aggregateId, int appending, int stored) {
        return new EventVersionConflictException(aggregateId, appending, stored);
    }

    public AggregateId aggregateId() {
        return aggregateId;
    }

    /** The version the rejected stream would have created. */
    public int expectedVersion() {
        return expectedVersion;
    }

    /** The version found in the store (at least {@link #expectedVersion()}; -1 when the store cannot tell). */
    public int actualVersion() {
        return actualVersion;
    }
}
