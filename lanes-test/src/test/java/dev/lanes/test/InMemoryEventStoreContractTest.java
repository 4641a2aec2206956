package dev.lanes.test;

import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;

class InMemoryEventStoreContractTest extends EventStoreContract {

    @Override
    protected EventStore createStore() {
        return EventStores.inMemory();
    }
}
