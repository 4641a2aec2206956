package dev.lanes.test;

import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.CheckpointStores;

class InMemoryCheckpointStoreContractTest extends CheckpointStoreContract {

    @Override
    protected CheckpointStore createStore() {
        return CheckpointStores.inMemory();
    }
}
