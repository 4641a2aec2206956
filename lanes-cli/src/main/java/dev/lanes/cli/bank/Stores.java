package dev.lanes.cli.bank;

import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.eventsourcing.PayloadCodec;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.eventsourcing.SnapshotStores;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import java.util.function.Supplier;

/**
 * Where a bank run keeps its events and snapshots, opened, and how to release them.
 *
 * @param kind {@code memory} or {@code postgres}, as the option takes it
 * @param description for the report's setup line, e.g. {@code "in-memory event store"}
 * @param codec the codec of the event payloads, the one the PostgreSQL store uses: the Kafka bus sends events with it
 * @param deadLetters opens each instance's dead-letter queue: in memory beside the in-memory store, in PostgreSQL
 *     beside the PostgreSQL store (so parked commands and events outlive the run as its events do); what it opened is
 *     released by {@link #close()}
 */
public record Stores(
        String kind,
        EventStore events,
        SnapshotStore snapshots,
        String description,
        Runnable release,
        PayloadCodec codec,
        Supplier<DeadLetterQueue> deadLetters)
        implements AutoCloseable {

    /** In-memory stores of the given kind and description, each instance with a dead-letter queue in memory. */
    public static Stores inMemory(String kind, String description, PayloadCodec codec) {
        return new Stores(
                kind,
                EventStores.inMemory(),
                SnapshotStores.inMemory(),
                description,
                () -> {},
                codec,
                DeadLetterQueues::inMemory);
    }

    @Override
    public void close() {
        release.run();
    }
}
