package dev.lanes.test;

import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.eventsourcing.SnapshotStores;

class InMemorySnapshotStoreContractTest extends SnapshotStoreContract {

    @Override
    protected SnapshotStore createStore() {
        return SnapshotStores.inMemory();
    }
}
