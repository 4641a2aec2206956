package dev.lanes.postgres;

/**
 * Turns one stored revision of an event type into a newer one (or into another type name, for a renamed or split
 * type), on read. Registered in {@link EventTypes} for the (type, revision) it reads; the store applies upcasters one
 * after another until no upcaster is registered for the result, which must then be the current revision of a
 * registered type (or a class name stored without registration).
 *
 * <p>Called on the thread that decodes a stored stream, possibly from several threads at once: it must be stateless
 * and must not block. It may change the given tree in place. A failure is reported as {@link
 * EventSerializationException} naming the stored type and revision.
 */
@FunctionalInterface
public interface Upcaster {

    /** The event at a later revision, or under another type name; never the same (type, revision) again. */
    SerializedEvent upcast(SerializedEvent event);
}
