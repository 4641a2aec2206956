package dev.lanes.cli.bank;

import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.postgres.JacksonEventSerializer;

/**
 * The one codec of the bank's event payloads: the PostgreSQL store writes and reads its events with it, and the Kafka
 * event bus sends and receives them with it, so both carry the same type names and read through the same upcasters.
 * The bank registers no type names (its events travel under their class names, as {@link EventTypes#NONE}); a service
 * that renames an event class registers it here, once, for both.
 */
public final class EventCodec {
    private EventCodec() {}

    /** A serializer with the bank's {@link EventTypes}; thread-safe, one per store or connection is fine. */
    public static JacksonEventSerializer bank() {
        return new JacksonEventSerializer(JacksonEventSerializer.defaultObjectMapper(), EventTypes.NONE);
    }
}
