package dev.lanes.modeling;

import dev.lanes.api.AggregateId;
import java.util.Objects;

/**
 * An aggregate's state at a version; version 0 is the initial state of an aggregate that does not exist yet.
 *
 * @param <S> the state type
 */
public record AggregateState<S>(AggregateId aggregateId, int version, S state) {

    public AggregateState {
        Objects.requireNonNull(aggregateId, "aggregateId");
        if (version < 0) {
            throw new IllegalArgumentException("version must not be negative: " + version + " (" + aggregateId + ")");
        }
        Objects.requireNonNull(state, "state");
    }

    /** Whether any stream was ever appended. */
    public boolean exists() {
        return version > 0;
    }

    /** The version the next appended stream must have. */
    public int nextVersion() {
        return version + 1;
    }
}
