package dev.lanes.test;

import dev.lanes.deadline.DeadlineStore;
import dev.lanes.deadline.DeadlineStores;

class InMemoryDeadlineStoreContractTest extends DeadlineStoreContract {

    @Override
    protected DeadlineStore createStore() {
        return DeadlineStores.inMemory();
    }
}
