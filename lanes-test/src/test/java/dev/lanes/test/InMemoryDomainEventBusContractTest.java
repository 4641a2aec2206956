package dev.lanes.test;

import dev.lanes.event.DomainEventBus;
import dev.lanes.event.DomainEventBuses;

class InMemoryDomainEventBusContractTest extends DomainEventBusContract {

    @Override
    protected DomainEventBus createBus() {
        return DomainEventBuses.inMemory();
    }
}
