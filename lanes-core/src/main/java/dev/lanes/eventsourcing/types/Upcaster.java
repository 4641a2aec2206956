package dev.lanes.eventsourcing.types;

/**
 * Turns one stored revision of an event type into a newer one (or into another type name, for a renamed or split
 * type), on read. Registered in {@link EventTypes} for the (type, revision) it reads; a codec applies upcasters one
 * after another until no upcaster is registered for the result, which must then be the current revision of a
 * registered type (or a class name stored without registration).
 *
 * <p>{@code D} is the representation of the payload the codec reads ({@code JsonNode} for the Jackson codecs of {@code
 * lanes-postgres} and {@code lanes-kafka}); an upcaster written for another representation fails the read with an
 * {@link UpcastingException}.
 *
 * <p>Called on the thread that decodes a stored stream or a received record, possibly from several threads at once: it
 * must be stateless and must not block. It may change the given payload in place. A failure is reported as {@link
 * UpcastingException} naming the stored type and revision.
 *
 * @param <D> the payload's representation
 */
@FunctionalInterface
public interface Upcaster<D> {

    /** The event at a later revision, or under another type name; never the same (type, revision) again. */
    SerializedEvent<D> upcast(SerializedEvent<D> event);
}
