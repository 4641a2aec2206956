package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import reactor.core.publisher.Mono;

/** Latest-snapshot storage. A snapshot older than the stored one never replaces it. Non-blocking. */
public interface SnapshotStore {

    /** The latest snapshot, or empty. */
    Mono<Snapshot> load(AggregateId aggregateId);

    /** Saves the snapshot unless a newer one is stored. */
    Mono<Void> save(Snapshot snapshot);

    /** A store that keeps nothing: every load replays from version 1. */
    SnapshotStore NONE = new SnapshotStore() {
        @Override
        public Mono<Snapshot> load(AggregateId aggregateId) {
            return Mono.empty();
        }

        @Override
        public Mono<Void> save(Snapshot snapshot) {
            return Mono.empty();
        }
    };
}
