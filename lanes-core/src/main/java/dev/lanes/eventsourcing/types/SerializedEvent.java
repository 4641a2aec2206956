package dev.lanes.eventsourcing.types;

import java.util.Objects;

/**
 * An event as it is stored or sent: its type name, the revision of that type it was written at, and its payload in the
 * codec's representation. This is what an {@link Upcaster} reads and returns.
 *
 * @param type the stored type name: a name registered in {@link EventTypes}, or a Java class name for payloads stored
 *     without a registration (all data written before type names existed)
 * @param revision the revision of the type it was written at, {@link EventTypes#UNREVISED} (0) when stored without a
 *     registration
 * @param payload the payload (a {@code JsonNode} for the Jackson codecs); an upcaster may change it in place or return
 *     another one
 * @param <D> the payload's representation
 */
public record SerializedEvent<D>(String type, int revision, D payload) {

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
    public SerializedEvent<D> as(String type, int revision) {
        return new SerializedEvent<>(type, revision, payload);
    }

    @Override
    public String toString() {
        return type + "@" + revision;
    }
}
