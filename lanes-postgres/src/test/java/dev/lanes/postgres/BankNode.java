package dev.lanes.postgres;

import dev.lanes.command.CommandBus;
import dev.lanes.command.CommandBuses;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandGateways;
import dev.lanes.command.CommandResults;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.dispatch.DispatcherStats;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.ParkingLots;
import dev.lanes.dispatch.RetainingParkingLot;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.examples.bank.Bank;
import dev.lanes.lifecycle.RuntimeContext;
import java.time.Duration;

/**
 * One instance of the bank's command side over a given event store: its own command bus, keyed-lane dispatcher and
 * gateway, as an application instance would have.
 */
final class BankNode implements AutoCloseable {
    final CommandResults results = new CommandResults();
    final CommandBus commandBus;
    final RetainingParkingLot parkingLot = ParkingLots.inMemory();
    final CommandDispatcher dispatcher;
    final CommandGateway gateway;

    BankNode(String name, EventStore eventStore) {
        this(name, eventStore, SnapshotStore.NONE, CommandDispatcher.DEFAULT_SETTINGS);
    }

    BankNode(String name, EventStore eventStore, SnapshotStore snapshotStore, LaneSettings settings) {
        this.commandBus = CommandBuses.inMemory(16_384, results);
        this.dispatcher = CommandDispatcher.builder(commandBus, eventStore, DomainEventBuses.inMemory(1024), results)
                .name(name)
                .register(Bank.definition())
                .snapshotStore(snapshotStore)
                .parkingLot(parkingLot)
                .settings(settings.withStrategy(LaneStrategy.KEYED))
                .build();
        this.gateway = CommandGateways.create(commandBus, eventStore, results);
    }

    BankNode start() {
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
