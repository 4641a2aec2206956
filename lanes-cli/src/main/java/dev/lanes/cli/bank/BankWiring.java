package dev.lanes.cli.bank;

import dev.lanes.Lanes;
import dev.lanes.cli.run.RecordingMetrics;
import dev.lanes.cli.run.Shutdowns;
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
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.TransferSaga;
import dev.lanes.processing.CompositeEventDispatcher;
import dev.lanes.processing.DeadLetterSequence;
import dev.lanes.processing.Snapshotter;
import dev.lanes.runtime.LanesRuntime;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
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

    BankWiring(LaneStrategy strategy, boolean eventSide, EventFlow eventFlow, Duration shutdownTimeout, Stores stores) {
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
                .quietPeriod(Shutdowns.quietPeriod(QUIET_PERIOD, shutdownTimeout));
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

    /** Messages parked by the command side and the event side (its parking lot and its dead-letter sequences). */
    long parked() {
        CompositeEventDispatcher side = events;
        if (side == null) {
            return commandParking.size();
        }
        List<DeadLetterSequence> sequences =
                Objects.requireNonNull(side.deadLetters().sequences().block(Duration.ofSeconds(30)));
        return (long) commandParking.size()
                + side.parked().size()
                + sequences.stream().mapToLong(DeadLetterSequence::size).sum();
    }
}
