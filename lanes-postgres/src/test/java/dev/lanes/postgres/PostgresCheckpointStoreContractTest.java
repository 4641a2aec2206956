package dev.lanes.postgres;

import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.test.CheckpointStoreContract;

/** The checkpoint store contract against a real PostgreSQL: claims on the database's clock. */
class PostgresCheckpointStoreContractTest extends CheckpointStoreContract {

    @Override
    protected CheckpointStore createStore() {
        return TestDatabase.store().checkpointStore();
    }
}
