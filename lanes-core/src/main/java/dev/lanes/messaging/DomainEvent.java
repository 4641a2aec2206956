package dev.lanes.messaging;

import java.util.Objects;

/**
 * One event of a stream, with its place in it.
 *
 * @param sequence 1-based position in its stream
 * @param payload the user's event value
 */
public record DomainEvent(int sequence, Object payload) {

    public DomainEvent {
        if (sequence < 1) {
            throw new IllegalArgumentException("sequence must be positive: " + sequence);
        }
        Objects.requireNonNull(payload, "payload");
    }

    public String type() {
        return payload.getClass().getName();
    }
}
