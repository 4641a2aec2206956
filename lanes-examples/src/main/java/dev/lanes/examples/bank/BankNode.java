package dev.lanes.examples.bank;

import dev.lanes.command.CommandBus;
import dev.lanes.command.CommandBuses;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandGateways;
import dev.lanes.command.CommandResults;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.dispatch.DispatcherStats;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.ParkingLots;
import dev.lanes.dispatch.RetainingParkingLot;
import dev.lanes.event.DomainEventBus;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.lifecycle.RuntimeContext;
import java.time.Duration;
import java.util.function.UnaryOperator;

/**
 * One instance of the bank's command side over a given event store, wired by hand as an application instance would
 * be: its own in-memory command bus, a dispatcher with keyed lanes, a gateway and a parking lot that keeps what it
 * parks. For tests and benchmarks that run several instances over one store without the runtime; {@link #start()}
 * starts the dispatcher, {@link #close()} stops it gracefully (30 s at most).
 */
public final class BankNode implements AutoCloseable {
    private final CommandResults results = new CommandResults();
    private final RetainingParkingLot parkingLot = ParkingLots.inMemory();
    private final CommandBus commandBus;
    private final DomainEventBus eventBus;
    private final CommandDispatcher dispatcher;
    private final CommandGateway gateway;

    /** A node with a command bus of 16,384 commands and an in-memory event bus. */
    public BankNode(String name, EventStore eventStore) {
        this(name, eventStore, 16_384, DomainEventBuses.inMemory(1024), builder -> builder);
    }

    /**
     * A node whose dispatcher {@code customize} adjusts after the defaults (keyed lanes, the bank registered, this
     * node's parking lot) are set.
     */
    public BankNode(
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
                        .settings(CommandDispatcher.DEFAULT_SETTINGS.withStrategy(LaneStrategy.KEYED)))
                .build();
        this.gateway = CommandGateways.create(commandBus, eventStore, results);
    }

    /** Starts the dispatcher, standalone (no runtime). */
    public BankNode start() {
        dispatcher.prepare(RuntimeContext.standalone()).block(Duration.ofSeconds(10));
        dispatcher.start();
        return this;
    }

    public CommandGateway gateway() {
        return gateway;
    }

    public CommandResults results() {
        return results;
    }

    public CommandBus commandBus() {
        return commandBus;
    }

    public DomainEventBus eventBus() {
        return eventBus;
    }

    public CommandDispatcher dispatcher() {
        return dispatcher;
    }

    /** What the dispatcher parked: kept, so a test can read it. */
    public RetainingParkingLot parkingLot() {
        return parkingLot;
    }

    /** The bank's lanes' counters. */
    public DispatcherStats stats() {
        return dispatcher.dispatchers().get(0).stats();
    }

    @Override
    public void close() {
        dispatcher.stopGracefully().block(Duration.ofSeconds(30));
    }
}
