package dev.lanes.cli;

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

    /**
     * The bounds of the event side.
     *
     * @param busBudget streams each consumer group's route may hold before new commands of its type pause
     * @param perLane streams one event lane may hold before its processor pauses its intake
     * @param perProcessor streams one processor may hold in all
     */
    record EventFlow(int busBudget, int perLane, int perProcessor) {
        static final EventFlow DEFAULT = new EventFlow(4096, 1024, 16_384);

        EventFlow {
            if (busBudget <= 0 || perLane <= 0 || perProcessor < perLane) {
                throw new IllegalArgumentException(
                        "bad event flow bounds: " + busBudget + ", " + perLane + "/" + perProcessor);
            }
        }

        /** {@code PER_LANE/TOTAL}, as the option takes it. */
        String bounds() {
            return perLane + "/" + perProcessor;
        }
    }

    BankWiring(
            LaneStrategy strategy,
            boolean eventSide,
            EventFlow eventFlow,
            Duration shutdownTimeout,
            StoreOptions.Stores stores) {
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
        this.runtime = new LanesRuntime(components, shutdownTimeout, quietPeriod(QUIET_PERIOD, shutdownTimeout));
    }

    /** The quiet period, shortened to half the deadline when the deadline is shorter than twice it. */
    static Duration quietPeriod(Duration preferred, Duration shutdownTimeout) {
        Duration half = shutdownTimeout.dividedBy(2);
        return preferred.compareTo(half) < 0 ? preferred : half;
    }

    /** Messages parked by the command side and the event side. */
    long parked() {
        return (long) commandParking.size()
                + (events == null ? 0 : events.parked().size());
    }
}
