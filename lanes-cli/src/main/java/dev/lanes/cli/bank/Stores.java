package dev.lanes.cli.bank;

import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.SnapshotStore;

/**
 * Where a bank run keeps its events and snapshots, opened, and how to release them.
 *
 * @param kind {@code memory} or {@code postgres}, as the option takes it
 * @param description for the report's setup line, e.g. {@code "in-memory event store"}
 */
public record Stores(String kind, EventStore events, SnapshotStore snapshots, String description, Runnable release)
        implements AutoCloseable {
    @Override
    public void close() {
        release.run();
    }
}
