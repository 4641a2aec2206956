package dev.lanes.test.events;

import dev.lanes.command.CommandDispatcher;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResults;
import dev.lanes.command.DefaultCommandGateway;
import dev.lanes.command.InMemoryCommandBus;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.event.DomainEventBus;
import dev.lanes.event.InMemoryDomainEventBus;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.InMemoryEventStore;
import dev.lanes.eventsourcing.InMemorySnapshotStore;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.TransferSaga;
import dev.lanes.processing.CompositeEventDispatcher;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.Snapshotter;
import dev.lanes.runtime.LanesRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** The whole bank on the in-memory defaults: command side, event side (projection, saga, snapshotter) and runtime. */
final class BankApp {
    final EventStore store;
    final InMemorySnapshotStore snapshots = new InMemorySnapshotStore();
    final CommandResults results = new CommandResults();
    final InMemoryCommandBus commandBus;
    final DomainEventBus eventBus;
    final CommandDispatcher commands;
    final CommandGateway gateway;
    final BalanceProjection balances = new BalanceProjection();
    final CompositeEventDispatcher events;
    final LanesRuntime runtime;

    BankApp(Duration shutdownTimeout, Duration quietPeriod, List<EventProcessor> extraProcessors) {
        this(new InMemoryEventStore(), shutdownTimeout, quietPeriod, extraProcessors, b -> b);
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
        this.commandBus = new InMemoryCommandBus(16_384, results);
        this.eventBus = new InMemoryDomainEventBus(eventBusCapacity);
        this.commands = CommandDispatcher.builder(commandBus, store, eventBus, results)
                .register(Bank.definition())
                .snapshotStore(snapshots)
                .settings(CommandDispatcher.DEFAULT_SETTINGS.withStrategy(LaneStrategy.KEYED))
                .build();
        this.gateway = new DefaultCommandGateway(commandBus, store, results);
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
