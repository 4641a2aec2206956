package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import java.time.Instant;
import java.util.Objects;

/**
 * An aggregate's state as of a version, so loading can skip the streams up to it.
 *
 * @param version the version the state includes (positive)
 * @param state the user's state value
 */
public record Snapshot(AggregateId aggregateId, int version, Object state, Instant createdAt) {

    public Snapshot {
        Objects.requireNonNull(aggregateId, "aggregateId");
        if (version < 1) {
            throw new IllegalArgumentException("version must be positive: " + version + " (" + aggregateId + ")");
        }
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(createdAt, "createdAt");
    }
}
