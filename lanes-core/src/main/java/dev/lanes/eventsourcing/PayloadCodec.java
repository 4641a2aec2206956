package dev.lanes.eventsourcing;

/**
 * How a store turns an event payload into what it keeps ({@link EncodedPayload}: a type name, a revision and text)
 * and back. Reading is where older revisions are brought to the current one (upcasting), so a codec decides both the
 * stable type names and how events stored by older releases read today.
 *
 * <p>{@link EventStores#inMemory(PayloadCodec)} runs a codec on every append and every read, so that tests of a service
 * exercise the same names, serialization and upcasters as its durable store; {@code lanes-postgres}'s {@code
 * JacksonEventSerializer} is one (JSON, type names and upcasters from its {@code EventTypes}).
 *
 * <p><b>Threading.</b> Called concurrently, from whatever thread appends or reads (possibly several at once, for the
 * same type): implementations must be thread-safe and stateless between calls (caches of immutable lookups are fine),
 * and must not block.
 *
 * <p><b>Failures.</b> Either method may throw any {@link RuntimeException} (a payload it cannot write, a stored type
 * it does not know, a revision it has no upcaster for); its message should name the type and revision. The store of
 * {@link EventStores#inMemory(PayloadCodec)} reports it as a {@link PayloadCodecException} with the failure as its
 * cause, naming the aggregate, version and event: an encoding failure fails the append and stores nothing of the
 * stream; a decoding failure fails the read.
 */
public interface PayloadCodec {

    /**
     * The payload as it is to be stored.
     *
     * @param payload an event payload, never {@code null}
     * @return never {@code null}
     * @throws RuntimeException if the payload cannot be encoded (its class unknown to the codec, a value it cannot write)
     */
    EncodedPayload encode(Object payload);

    /**
     * The payload {@code stored} encodes, at the current revision of its type: upcast first when it was stored at an
     * older one.
     *
     * @param stored what {@link #encode(Object)} returned, possibly in an older release with other names and revisions
     * @return never {@code null}
     * @throws RuntimeException if the type is unknown, the revision cannot be brought to the current one, or the data
     *     does not fit the type
     */
    Object decode(EncodedPayload stored);
}
