package dev.lanes.eventsourcing;

/** The snapshot stores Lanes ships in its core; {@link SnapshotStore#NONE} keeps nothing. */
public final class SnapshotStores {
    private SnapshotStores() {}

    /** A new, empty store that keeps the latest snapshot of each aggregate in memory. */
    public static SnapshotStore inMemory() {
        return new InMemorySnapshotStore();
    }
}
