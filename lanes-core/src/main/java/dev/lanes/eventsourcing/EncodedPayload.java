package dev.lanes.eventsourcing;

import java.util.Objects;

/**
 * An event payload as a store keeps it: the stable name of its type, the revision of that type it was written at, and
 * its data as text. This is what a {@link PayloadCodec} writes and reads back.
 *
 * @param type the stored type name (a registered name such as {@code "wallet.MoneyIn"}, or a Java class name for
 *     payloads stored without a registration); not blank
 * @param revision the revision of {@code type} the data was written at, {@code 0} for an unrevised type; not negative
 * @param data the encoded payload (JSON, for example)
 */
public record EncodedPayload(String type, int revision, String data) {

    public EncodedPayload {
        if (type == null || type.isBlank()) {
            throw new IllegalArgumentException("type must not be blank: '" + type + "'");
        }
        if (revision < 0) {
            throw new IllegalArgumentException("revision must not be negative: " + revision + " (" + type + ")");
        }
        Objects.requireNonNull(data, "data");
    }

    /** {@code type@revision}; the data is left out (it may be large, or hold what a log must not show). */
    @Override
    public String toString() {
        return type + "@" + revision;
    }
}
