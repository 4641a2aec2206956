package dev.lanes.test;

import dev.lanes.eventsourcing.InMemorySnapshotStore;
import dev.lanes.eventsourcing.SnapshotStore;

class InMemorySnapshotStoreContractTest extends SnapshotStoreContract {

    @Override
    protected SnapshotStore createStore() {
        return new InMemorySnapshotStore();
    }
}
