package dev.lanes.kafka;

/**
 * Turns command payloads (and, unless the buses were given an event {@link dev.lanes.eventsourcing.PayloadCodec}, event
 * payloads) into JSON text and back. The bus writes {@link #typeName(Object)} next to the JSON and gives it back to
 * {@link #deserialize}. The same shape as the PostgreSQL store's {@code EventSerializer}, so one class can serve both.
 *
 * <p>Implementations must be thread-safe. A command that fails to read is a record the bus cannot decode: it is parked
 * with its topic, partition and offset, and the partition moves on. An event that fails to read is delivered undecoded
 * and held by its processors' dead-letter queues (see {@link KafkaDomainEventBus}).
 */
public interface PayloadSerializer {

    /** The name written with the payload; the payload's class name unless overridden (e.g. for aliases). */
    default String typeName(Object payload) {
        return payload.getClass().getName();
    }

    /** The payload as one JSON value; throws if it cannot be written. */
    String serialize(Object payload);

    /** The payload written as {@code json} under {@code typeName}; throws if the type is unknown or does not fit. */
    Object deserialize(String typeName, String json);
}
