package dev.lanes.test.events;

import dev.lanes.command.CommandBus;
import dev.lanes.command.CommandBuses;
import dev.lanes.command.CommandDispatcher;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandGateways;
import dev.lanes.command.CommandResults;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.event.DomainEventBus;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.eventsourcing.SnapshotStores;
import dev.lanes.processing.CompositeEventDispatcher;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.Snapshotter;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.test.bank.BalanceProjection;
import dev.lanes.test.bank.Bank;
import dev.lanes.test.bank.TransferSaga;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** The whole bank on the in-memory defaults: command side, event side (projection, saga, snapshotter) and runtime. */
final class BankApp {
    final EventStore store;
    final SnapshotStore snapshots = SnapshotStores.inMemory();
    final CommandResults results = new CommandResults();
    final CommandBus commandBus;
    final DomainEventBus eventBus;
    final CommandDispatcher commands;
    final CommandGateway gateway;
    final BalanceProjection balances = new BalanceProjection();
    final CompositeEventDispatcher events;
    final LanesRuntime runtime;

    BankApp(Duration shutdownTimeout, Duration quietPeriod, List<EventProcessor> extraProcessors) {
        this(EventStores.inMemory(), shutdownTimeout, quietPeriod, extraProcessors, b -> b);
    }

    BankApp(
            EventStore store,
            Duration shutdownTimeout,
            Duration quietPeriod,
            List<EventProcessor> extraProcessors,
            UnaryOperator<CompositeEventDispatcher.Builder> customizeEvents) {
        this(store, 4096, shutdownTimeout, quietPeriod, extraProcessors, customizeEvents);
    }

    BankApp(
            EventStore store,
            int eventBusCapacity,
            Duration shutdownTimeout,
            Duration quietPeriod,
            List<EventProcessor> extraProcessors,
            UnaryOperator<CompositeEventDispatcher.Builder> customizeEvents) {
        this.store = store;
        this.commandBus = CommandBuses.inMemory(16_384, results);
        this.eventBus = DomainEventBuses.inMemory(eventBusCapacity);
        this.commands = CommandDispatcher.builder(commandBus, store, eventBus, results)
                .register(Bank.definition())
                .snapshotStore(snapshots)
                .settings(CommandDispatcher.DEFAULT_SETTINGS.withStrategy(LaneStrategy.KEYED))
                .build();
        this.gateway = CommandGateways.create(commandBus, store, results);
        List<EventProcessor> processors = new ArrayList<>();
        processors.add(balances.processor());
        processors.add(TransferSaga.processor(gateway));
        processors.add(Snapshotter.processor("Snapshotter", Bank.definition(), store, snapshots, 10));
        processors.addAll(extraProcessors);
        CompositeEventDispatcher.Builder builder =
                CompositeEventDispatcher.builder("EventDispatcher", eventBus).commandResults(results);
        processors.forEach(builder::processor);
        this.events = customizeEvents.apply(builder).build();
        this.runtime = new LanesRuntime(List.of(commands, events), shutdownTimeout, quietPeriod);
    }

    BankApp start() {
        runtime.start().block(Duration.ofSeconds(10));
        return this;
    }
}
