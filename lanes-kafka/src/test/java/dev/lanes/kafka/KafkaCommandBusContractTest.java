package dev.lanes.kafka;

import dev.lanes.command.CommandBus;
import dev.lanes.command.CommandResults;
import dev.lanes.test.CommandBusContract;

/** The command bus contract on the in-process broker: a durable bus, never full, that redelivers what it rejected. */
class KafkaCommandBusContractTest extends CommandBusContract {
    private final ContractBuses buses = new ContractBuses("cbc");

    @Override
    protected CommandBus createBus(CommandResults results) {
        return buses.kafka.commandBus(results);
    }

    @Override
    protected void open(CommandBus bus) {
        buses.open();
    }

    @Override
    protected void close(CommandBus bus) {
        buses.close();
    }
}
