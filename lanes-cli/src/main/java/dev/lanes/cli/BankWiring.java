package dev.lanes.cli;

import dev.lanes.Lanes;
import dev.lanes.command.CommandDispatcher;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResults;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.ParkingLots;
import dev.lanes.dispatch.RetainingParkingLot;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.processing.CompositeEventDispatcher;
import dev.lanes.processing.Snapshotter;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.test.bank.BalanceProjection;
import dev.lanes.test.bank.Bank;
import dev.lanes.test.bank.TransferSaga;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The bank wired by {@link Lanes#builder()} on the embedded defaults: in-memory command bus and event bus, the given
 * event and snapshot stores; the command dispatcher and gateway; optionally the event side (balance projection,
 * transfer saga, snapshotter every 10 versions, order audit); all under one {@link LanesRuntime}, every dispatcher
 * bound to {@link RecordingMetrics}.
 */
final class BankWiring {
    /** How long the runtime waits, once stopping, for no activity before it closes admission (saga tails). */
    static final Duration QUIET_PERIOD = Duration.ofMillis(200);

    final EventStore store;
    final SnapshotStore snapshots;
    final CommandResults results;
    final RecordingMetrics metrics = new RecordingMetrics();
    final RetainingParkingLot commandParking = ParkingLots.inMemory();
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
    }

    BankWiring(LaneStrategy strategy, boolean eventSide, Duration shutdownTimeout, StoreOptions.Stores stores) {
        this(strategy, eventSide, EventFlow.DEFAULT, shutdownTimeout, stores);
    }

    BankWiring(
            LaneStrategy strategy,
            boolean eventSide,
            EventFlow eventFlow,
            Duration shutdownTimeout,
            StoreOptions.Stores stores) {
        this.store = stores.events();
        this.snapshots = stores.snapshots();
        Lanes.Builder builder = Lanes.builder()
                .aggregate(Bank.definition())
                .eventStore(store)
                .snapshotStore(snapshots)
                .commandBusCapacity(16_384)
                .commandSettings(CommandDispatcher.DEFAULT_SETTINGS.withStrategy(strategy))
                .commandParkingLot(commandParking)
                .eventBus(DomainEventBuses.inMemory(eventFlow.busBudget()))
                .metrics(metrics)
                .shutdownTimeout(shutdownTimeout)
                .quietPeriod(quietPeriod(QUIET_PERIOD, shutdownTimeout));
        if (eventSide) {
            builder.eventSettings(LaneSettings.DEFAULT
                            .withStrategy(strategy)
                            .withBounds(eventFlow.perLane(), eventFlow.perProcessor()))
                    .processor(balances.processor())
                    .processor(TransferSaga::processor)
                    .processor(Snapshotter.processor("Snapshotter", Bank.definition(), store, snapshots, 10))
                    .processor(audit.processor());
        }
        Lanes lanes = builder.build();
        this.results = lanes.commandResults();
        this.commands = lanes.commandDispatcher();
        this.gateway = lanes.gateway();
        this.events = lanes.eventDispatcher().orElse(null);
        this.runtime = lanes.runtime();
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
