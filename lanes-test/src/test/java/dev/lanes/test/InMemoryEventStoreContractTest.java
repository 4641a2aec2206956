package dev.lanes.test;

import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.InMemoryEventStore;

class InMemoryEventStoreContractTest extends EventStoreContract {

    @Override
    protected EventStore createStore() {
        return new InMemoryEventStore();
    }
}
