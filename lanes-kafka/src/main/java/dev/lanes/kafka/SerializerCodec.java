package dev.lanes.kafka;

import dev.lanes.eventsourcing.EncodedPayload;
import dev.lanes.eventsourcing.PayloadCodec;
import java.util.Objects;

/**
 * A {@link PayloadSerializer} that is not a {@link PayloadCodec}, as the event codec of the buses: events under its
 * {@link PayloadSerializer#typeName}, unrevised, as before type names existed. It has no upcasters: an event written
 * at a revision is read by its type name as is.
 */
final class SerializerCodec implements PayloadCodec {
    private final PayloadSerializer serializer;

    SerializerCodec(PayloadSerializer serializer) {
        this.serializer = Objects.requireNonNull(serializer, "serializer");
    }

    @Override
    public EncodedPayload encode(Object payload) {
        return new EncodedPayload(serializer.typeName(payload), 0, serializer.serialize(payload));
    }

    @Override
    public Object decode(EncodedPayload stored) {
        return serializer.deserialize(stored.type(), stored.data());
    }

    @Override
    public String toString() {
        return "SerializerCodec[" + serializer + "]";
    }
}
