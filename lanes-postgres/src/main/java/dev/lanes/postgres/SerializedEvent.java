package dev.lanes.postgres;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * An event as it is stored: its type name, the revision of that type it was written at, and its JSON. This is what an
 * {@link Upcaster} reads and returns.
 *
 * @param type the stored type name: a name registered in {@link EventTypes}, or a Java class name for payloads stored
 *     without a registration (all data written before type names existed)
 * @param revision the revision of the type it was written at, {@link EventTypes#UNREVISED} (0) when stored without a
 *     registration
 * @param payload the payload's JSON; an upcaster may change it in place or return another tree
 */
public record SerializedEvent(String type, int revision, JsonNode payload) {

    public SerializedEvent {
        if (type == null || type.isBlank()) {
            throw new IllegalArgumentException("type must not be blank: '" + type + "'");
        }
        if (revision < 0) {
            throw new IllegalArgumentException("revision must not be negative: " + revision + " (" + type + ")");
        }
        Objects.requireNonNull(payload, "payload");
    }

    /** The same payload under another type name and revision. */
    public SerializedEvent as(String type, int revision) {
        return new SerializedEvent(type, revision, payload);
    }

    @Override
    public String toString() {
        return type + "@" + revision;
    }
}
