package dev.lanes.eventsourcing;

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
}
