package dev.lanes.cli.bank;

import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.PayloadCodec;
import dev.lanes.eventsourcing.SnapshotStore;

/**
 * Where a bank run keeps its events and snapshots, opened, and how to release them.
 *
 * @param kind {@code memory} or {@code postgres}, as the option takes it
 * @param description for the report's setup line, e.g. {@code "in-memory event store"}
 * @param codec the codec of the event payloads, the one the PostgreSQL store uses: the Kafka bus sends events with it
 */
public record Stores(
        String kind,
        EventStore events,
        SnapshotStore snapshots,
        String description,
        Runnable release,
        PayloadCodec codec)
        implements AutoCloseable {
    @Override
    public void close() {
        release.run();
    }
}
