package dev.lanes.test.events;

import dev.lanes.Lanes;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResults;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.event.DomainEventBus;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.eventsourcing.SnapshotStores;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.TransferSaga;
import dev.lanes.processing.CompositeEventDispatcher;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.Snapshotter;
import dev.lanes.runtime.LanesRuntime;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The whole bank on the in-memory defaults, wired by {@link Lanes#builder()}: command side, event side (projection,
 * saga, snapshotter) and runtime.
 */
final class BankApp {
    final EventStore store;
    final SnapshotStore snapshots = SnapshotStores.inMemory();
    final DomainEventBus eventBus;
    final BalanceProjection balances = new BalanceProjection();
    final Lanes lanes;
    final CommandResults results;
    final CommandDispatcher commands;
    final CommandGateway gateway;
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
            UnaryOperator<Lanes.Builder> customize) {
        this(store, 4096, shutdownTimeout, quietPeriod, extraProcessors, customize);
    }

    BankApp(
            EventStore store,
            int eventBusCapacity,
            Duration shutdownTimeout,
            Duration quietPeriod,
            List<EventProcessor> extraProcessors,
            UnaryOperator<Lanes.Builder> customize) {
        this.store = store;
        this.eventBus = DomainEventBuses.inMemory(eventBusCapacity);
        Lanes.Builder builder = Lanes.builder()
                .aggregate(Bank.definition())
                .eventStore(store)
                .snapshotStore(snapshots)
                .eventBus(eventBus)
                .commandSettings(CommandDispatcher.DEFAULT_SETTINGS.withStrategy(LaneStrategy.KEYED))
                .shutdownTimeout(shutdownTimeout)
                .quietPeriod(quietPeriod)
                .processor(balances.processor())
                .processor(TransferSaga::processor)
                .processor(Snapshotter.processor("Snapshotter", Bank.definition(), store, snapshots, 10));
        extraProcessors.forEach(builder::processor);
        this.lanes = customize.apply(builder).build();
        this.results = lanes.commandResults();
        this.commands = lanes.commandDispatcher();
        this.gateway = lanes.gateway();
        this.events = lanes.eventDispatcher().orElseThrow();
        this.runtime = lanes.runtime();
    }

    BankApp start() {
        lanes.start(Duration.ofSeconds(10));
        return this;
    }
}
