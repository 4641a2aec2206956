package dev.lanes.cli.bank;

import dev.lanes.Lanes;
import dev.lanes.cli.report.Formats;
import dev.lanes.cli.run.RecordingMetrics;
import dev.lanes.cli.run.Shutdowns;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.lane.CommandDispatcher;
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
import dev.lanes.kafka.KafkaBuses;
import dev.lanes.kafka.KafkaOptions;
import dev.lanes.processing.Snapshotter;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterSequence;
import dev.lanes.runtime.ShutdownReport;
import dev.lanes.tracing.MessageTracing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The bank wired by {@link Lanes#builder()}, as one or more instances over the given event and snapshot stores: on the
 * in-memory buses one instance; on Kafka each instance has its own connection, command dispatcher and event
 * processors, and the instances share the topics (each consumer group spreads its partitions over them), the store,
 * the read models (balance projection, order audit) and the metrics; on the in-memory buses the dispatchers share one
 * pool of workers. Optionally the event side (balance projection, transfer saga, snapshotter every 10 versions, order
 * audit); every dispatcher bound to {@link RecordingMetrics}.
 */
final class BankWiring {
    /** How long the runtime waits, once stopping, for no activity before it closes admission (saga tails). */
    static final Duration QUIET_PERIOD = Duration.ofMillis(200);

    final EventStore store;
    final SnapshotStore snapshots;
    final RecordingMetrics metrics = new RecordingMetrics();
    final RetainingParkingLot commandParking = ParkingLots.inMemory();
    final BalanceProjection balances = new BalanceProjection();
    final OrderAudit audit = new OrderAudit();
    final boolean eventSide;
    /**
     * On the in-memory buses, the workers every dispatcher shares ({@link Lanes.Builder#sharedWorkers}): one per CPU;
     * with a pool per dispatcher, the command lanes and the event lanes each kept a worker per CPU, twice the cores, and
     * spent a share of the CPU putting each other's workers to sleep and waking them. 0 on Kafka: a pool per dispatcher.
     */
    final int sharedWorkers;

    final List<Lanes> instances = new ArrayList<>();
    final CommandGateway gateway;
    private final Buses buses;

    BankWiring(
            LaneStrategy strategy,
            boolean eventSide,
            EventFlow eventFlow,
            Duration shutdownTimeout,
            Stores stores,
            Buses buses,
            MessageTracing tracing) {
        this.store = stores.events();
        this.snapshots = stores.snapshots();
        this.eventSide = eventSide;
        this.buses = buses;
        this.sharedWorkers = buses.kafka() == null ? Runtime.getRuntime().availableProcessors() : 0;
        for (int i = 0; i < buses.instances(); i++) {
            instances.add(instance(
                    strategy,
                    eventFlow,
                    shutdownTimeout,
                    buses.connect(i, stores.codec()),
                    stores.deadLetters().get(),
                    tracing));
        }
        List<CommandGateway> gateways = instances.stream().map(Lanes::gateway).toList();
        this.gateway = gateways.size() == 1 ? gateways.get(0) : new SpreadGateway(gateways);
    }

    private Lanes instance(
            LaneStrategy strategy,
            EventFlow eventFlow,
            Duration shutdownTimeout,
            @Nullable KafkaBuses kafka,
            DeadLetterQueue deadLetters,
            MessageTracing tracing) {
        Lanes.Builder builder = Lanes.builder()
                .tracing(tracing)
                .aggregate(Bank.definition())
                .eventStore(store)
                .deadLetterQueue(deadLetters)
                .snapshotStore(snapshots)
                .commandParkingLot(commandParking)
                .metrics(metrics)
                .shutdownTimeout(shutdownTimeout)
                .quietPeriod(Shutdowns.quietPeriod(QUIET_PERIOD, shutdownTimeout));
        if (kafka == null) {
            builder.sharedWorkers(sharedWorkers)
                    .commandBusCapacity(16_384)
                    .commandSettings(CommandDispatcher.DEFAULT_SETTINGS.withStrategy(strategy))
                    .eventBus(DomainEventBuses.inMemory(eventFlow.busBudget()));
        } else {
            kafka.applyTo(builder).commandSettings(KafkaBuses.COMMAND_SETTINGS.withStrategy(strategy));
        }
        if (eventSide) {
            builder.eventSettings(LaneSettings.DEFAULT
                            .withStrategy(strategy)
                            .withBounds(eventFlow.perLane(), eventFlow.perProcessor()))
                    .processor(balances.processor())
                    .processor(TransferSaga::processor)
                    .processor(Snapshotter.processor("Snapshotter", Bank.definition(), store, snapshots, 10))
                    .processor(audit.processor());
        }
        return builder.build();
    }

    /** Starts every instance, together, and waits for all (or the first failure). */
    Mono<Void> start() {
        return Flux.fromIterable(instances)
                .flatMap(lanes -> lanes.runtime().start())
                .then();
    }

    /**
     * Stops every instance gracefully, together; the report of the one that did worst: forced before drained, then
     * the longest.
     */
    Mono<ShutdownReport> shutdown() {
        return Flux.fromIterable(instances)
                .flatMap(lanes -> lanes.runtime().shutdown())
                .collectList()
                .map(reports -> reports.stream()
                        .max(Comparator.comparing((ShutdownReport report) -> !report.graceful())
                                .thenComparing(ShutdownReport::duration))
                        .orElseThrow());
    }

    /**
     * On Kafka, waits (at most {@code max}) until every consumer group read its topic to the end, so that a stop of
     * every instance leaves nothing unread, retrying the admin calls that fail until then; at once on the in-memory
     * buses.
     *
     * @return null when the groups drained (or there is no Kafka); else why not, for the report
     */
    @Nullable
    String awaitDrained(Duration max) {
        KafkaOptions options = buses.kafka();
        if (options != null) {
            List<String> processors = instances.get(0).eventDispatcher().stream()
                    .flatMap(events -> events.dispatchers().stream())
                    .map(dispatcher -> dispatcher.name())
                    .distinct()
                    .toList();
            TopicsDrained.Outcome outcome = TopicsDrained.await(options, Bank.ACCOUNT, processors, max);
            if (!outcome.drained()) {
                return "the consumer groups had not read their topics to the end when the stop began (waited "
                        + Formats.duration(max)
                        + (outcome.lastFailure() == null
                                ? ")"
                                : "; " + outcome.failedCalls() + " look(s) at their lag failed, the last: "
                                        + outcome.lastFailure() + ")");
            }
        }
        return null;
    }

    /** Commands sent from any instance whose wait has not ended. */
    int inFlight() {
        return instances.stream()
                .mapToInt(lanes -> lanes.commandResults().inFlight())
                .sum();
    }

    /**
     * Messages parked by the command side and the event side of every instance: their parking lots (what a dead-letter
     * queue could not take) and the letters of its dead-letter sequences, commands' included.
     */
    long parked() {
        return commandParking.size()
                + instances.stream().mapToLong(BankWiring::parked).sum();
    }

    private static long parked(Lanes lanes) {
        List<DeadLetterSequence> sequences =
                Objects.requireNonNull(lanes.deadLetters().sequences().block(Duration.ofSeconds(30)));
        long lots =
                lanes.eventDispatcher().map(side -> (long) side.parked().size()).orElse(0L);
        return lots + sequences.stream().mapToLong(DeadLetterSequence::size).sum();
    }
}
