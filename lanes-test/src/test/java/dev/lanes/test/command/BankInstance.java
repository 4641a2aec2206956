package dev.lanes.test.command;

import dev.lanes.command.CommandBus;
import dev.lanes.command.CommandBuses;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandGateways;
import dev.lanes.command.CommandResults;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.dispatch.DispatcherStats;
import dev.lanes.dispatch.ParkingLots;
import dev.lanes.dispatch.RetainingParkingLot;
import dev.lanes.event.DomainEventBus;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.examples.bank.Bank;
import dev.lanes.lifecycle.RuntimeContext;
import java.time.Duration;
import java.util.function.UnaryOperator;

/** One instance of the bank's command side: its own bus, dispatcher and gateway, over a given event store. */
final class BankInstance implements AutoCloseable {
    final CommandResults results = new CommandResults();
    final CommandBus commandBus;
    final DomainEventBus eventBus;
    final RetainingParkingLot parkingLot = ParkingLots.inMemory();
    final CommandDispatcher dispatcher;
    final CommandGateway gateway;

    BankInstance(String name, EventStore eventStore) {
        this(name, eventStore, 4096, DomainEventBuses.inMemory(1024), builder -> builder);
    }

    BankInstance(
            String name,
            EventStore eventStore,
            int busCapacity,
            DomainEventBus eventBus,
            UnaryOperator<CommandDispatcher.Builder> customize) {
        this.commandBus = CommandBuses.inMemory(busCapacity, results);
        this.eventBus = eventBus;
        this.dispatcher = customize
                .apply(CommandDispatcher.builder(commandBus, eventStore, eventBus, results)
                        .name(name)
                        .register(Bank.definition())
                        .parkingLot(parkingLot)
                        .settings(
                                CommandDispatcher.DEFAULT_SETTINGS.withStrategy(dev.lanes.dispatch.LaneStrategy.KEYED)))
                .build();
        this.gateway = CommandGateways.create(commandBus, eventStore, results);
    }

    BankInstance start() {
        dispatcher.prepare(RuntimeContext.standalone()).block(Duration.ofSeconds(10));
        dispatcher.start();
        return this;
    }

    DispatcherStats stats() {
        return dispatcher.dispatchers().get(0).stats();
    }

    @Override
    public void close() {
        dispatcher.stopGracefully().block(Duration.ofSeconds(30));
    }
}
