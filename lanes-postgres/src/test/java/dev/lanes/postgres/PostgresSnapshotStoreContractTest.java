package dev.lanes.postgres;

import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.test.SnapshotStoreContract;

/** The whole snapshot store contract against a real PostgreSQL, sharing the event store's pool. */
class PostgresSnapshotStoreContractTest extends SnapshotStoreContract {

    @Override
    protected SnapshotStore createStore() {
        return TestDatabase.store().snapshotStore();
    }
}
