package dev.lanes.kafka;

import dev.lanes.event.DomainEventBus;
import dev.lanes.test.DomainEventBusContract;

/** The domain event bus contract on the in-process broker: one consumer group per processor name. */
class KafkaDomainEventBusContractTest extends DomainEventBusContract {
    private final ContractBuses buses = new ContractBuses("ebc");

    @Override
    protected DomainEventBus createBus() {
        return buses.kafka.eventBus();
    }

    @Override
    protected void open(DomainEventBus bus) {
        buses.open();
    }

    @Override
    protected void close(DomainEventBus bus) {
        buses.close();
    }
}
