package dev.lanes.eventsourcing;

import java.util.Objects;

/** The event stores Lanes ships in its core. A durable one lives in its own module ({@code lanes-postgres}). */
public final class EventStores {
    private EventStores() {}

    /**
     * A new, empty store that keeps every stream in memory, for tests and single-instance services that may lose their
     * events on exit. An append is atomic against concurrent appends to the same aggregate (one monitor per aggregate);
     * different aggregates never contend. Unbounded: it grows with the events appended.
     */
    public static EventStore inMemory() {
        return new InMemoryEventStore();
    }

    /**
     * A new, empty in-memory store that keeps every payload encoded by {@code codec}, as a durable store would: each
     * event's payload is encoded on append and decoded on every read ({@code load}, {@code readAll}, {@code
     * findByRequestId}), so tests run the same type names, serialization and upcasters as production, and a payload the
     * codec cannot write or read fails here first. Readers get new payload objects on every read, never the appended
     * ones.
     *
     * <p>An encoding failure fails that append with a {@link PayloadCodecException} and stores nothing of the stream; a
     * decoding failure fails the read with a {@link PayloadCodecException} naming the aggregate, version, event and
     * stored type and revision. Otherwise as {@link #inMemory()}, whose payloads are kept as they are (no codec, no
     * encoding cost).
     *
     * @param codec called concurrently by appends and reads ({@link PayloadCodec} says what it must guarantee)
     */
    public static EventStore inMemory(PayloadCodec codec) {
        return new EncodingEventStore(new InMemoryEventStore(), Objects.requireNonNull(codec, "codec"));
    }
}
