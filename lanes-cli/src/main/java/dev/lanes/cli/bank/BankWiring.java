package dev.lanes.cli.bank;

import dev.lanes.cli.run.RecordingMetrics;
import dev.lanes.cli.run.Shutdowns;
import dev.lanes.command.CommandDispatcher;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResults;
import dev.lanes.command.DefaultCommandGateway;
import dev.lanes.command.InMemoryCommandBus;
import dev.lanes.dispatch.InMemoryParkingLot;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.ParkingLot;
import dev.lanes.event.InMemoryDomainEventBus;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.TransferSaga;
import dev.lanes.processing.CompositeEventDispatcher;
import dev.lanes.processing.Snapshotter;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.RuntimeComponent;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The bank on the embedded defaults: in-memory event store, snapshot store, command bus and event bus; the command
 * dispatcher and gateway; optionally the event side (balance projection, transfer saga, snapshotter every 10 versions,
 * order audit); all under one {@link LanesRuntime}, every dispatcher bound to {@link RecordingMetrics}.
 */
final class BankWiring {
    /** How long the runtime waits, once stopping, for no activity before it closes admission (saga tails). */
    static final Duration QUIET_PERIOD = Duration.ofMillis(200);

    final EventStore store;
    final SnapshotStore snapshots;
    final CommandResults results = new CommandResults();
    final RecordingMetrics metrics = new RecordingMetrics();
    final InMemoryParkingLot commandParking = ParkingLot.inMemory();
    final CommandDispatcher commands;
    final CommandGateway gateway;
    final BalanceProjection balances = new BalanceProjection();
    final OrderAudit audit = new OrderAudit();
    final @Nullable CompositeEventDispatcher events;
    final LanesRuntime runtime;

    BankWiring(LaneStrategy strategy, boolean eventSide, EventFlow eventFlow, Duration shutdownTimeout, Stores stores) {
        this.store = stores.events();
        this.snapshots = stores.snapshots();
        InMemoryCommandBus commandBus = new InMemoryCommandBus(16_384, results);
        InMemoryDomainEventBus eventBus = new InMemoryDomainEventBus(eventFlow.busBudget());
        this.commands = CommandDispatcher.builder(commandBus, store, eventBus, results)
                .register(Bank.definition())
                .snapshotStore(snapshots)
                .settings(CommandDispatcher.DEFAULT_SETTINGS.withStrategy(strategy))
                .parkingLot(commandParking)
                .metrics(metrics)
                .build();
        this.gateway = new DefaultCommandGateway(commandBus, store, results);
        List<RuntimeComponent> components;
        if (eventSide) {
            CompositeEventDispatcher eventDispatcher = CompositeEventDispatcher.builder("EventDispatcher", eventBus)
                    .commandResults(results)
                    .settings(LaneSettings.DEFAULT
                            .withStrategy(strategy)
                            .withBounds(eventFlow.perLane(), eventFlow.perProcessor()))
                    .metrics(metrics)
                    .processor(balances.processor())
                    .processor(TransferSaga.processor(gateway))
                    .processor(Snapshotter.processor("Snapshotter", Bank.definition(), store, snapshots, 10))
                    .processor(audit.processor())
                    .build();
            this.events = eventDispatcher;
            components = List.of(commands, eventDispatcher);
        } else {
            this.events = null;
            components = List.of(commands);
        }
        this.runtime =
                new LanesRuntime(components, shutdownTimeout, Shutdowns.quietPeriod(QUIET_PERIOD, shutdownTimeout));
    }

    /** Messages parked by the command side and the event side. */
    long parked() {
        return (long) commandParking.size()
                + (events == null ? 0 : events.parked().size());
    }
}
