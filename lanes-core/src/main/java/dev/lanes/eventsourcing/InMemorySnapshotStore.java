package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;

/** Keeps the latest snapshot of each aggregate in memory. */
final class InMemorySnapshotStore implements SnapshotStore {
    private final ConcurrentHashMap<AggregateId, Snapshot> snapshots = new ConcurrentHashMap<>();

    @Override
    public Mono<Snapshot> load(AggregateId aggregateId) {
        return Mono.fromSupplier(() -> snapshots.get(Objects.requireNonNull(aggregateId, "aggregateId")));
    }

    @Override
    public Mono<Void> save(Snapshot snapshot) {
        return Mono.fromRunnable(() -> snapshots.merge(
                snapshot.aggregateId(),
                snapshot,
                (old, candidate) -> candidate.version() > old.version() ? candidate : old));
    }

    @Override
    public String toString() {
        return "InMemorySnapshotStore[" + snapshots.size() + " snapshot(s)]";
    }
}
