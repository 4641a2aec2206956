package dev.lanes.test;

import dev.lanes.command.CommandBus;
import dev.lanes.command.CommandBuses;
import dev.lanes.command.CommandResults;
import java.util.OptionalInt;

class InMemoryCommandBusContractTest extends CommandBusContract {
    private static final int CAPACITY = 8;

    @Override
    protected CommandBus createBus(CommandResults results) {
        return CommandBuses.inMemory(CAPACITY, results);
    }

    @Override
    protected OptionalInt capacityPerType() {
        return OptionalInt.of(CAPACITY);
    }
}
