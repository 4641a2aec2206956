package dev.lanes.command.lane;

import dev.lanes.api.LanesException;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.command.CommandBus;
import dev.lanes.command.CommandResults;
import dev.lanes.command.LaneReports;
import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.dispatch.ExchangeHandler;
import dev.lanes.dispatch.HandlerTimeout;
import dev.lanes.dispatch.HandlerTimeoutException;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.dispatch.ParkingLot;
import dev.lanes.dispatch.ParkingLots;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.event.DomainEventBus;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.flow.IntakeGate;
import dev.lanes.internal.Require;
import dev.lanes.lifecycle.GroupedComponent;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import dev.lanes.tracing.MessageTracing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The command side of one instance: one {@link AggregateDispatcher} per aggregate type, all on the schedulers of one
 * {@link AggregateSchedulerSupplier} that this component owns and stops after its dispatchers drained.
 *
 * <p>Per command, in its aggregate's lane: load (cache, or snapshot + tail) -> decide -> evolve -> append -> publish to
 * the {@link DomainEventBus} (only after the append succeeded) -> report to {@link CommandResults}. A version conflict
 * (another instance wrote first) evicts the cached state and is retried by the lane's retry policy; a command whose
 * retries are exhausted is parked and its sender gets the last error: with a {@link CommandParking} (as {@code Lanes}
 * wires it) durably in the dead-letter queue, and the aggregate's later commands are parked behind it until its sequence
 * is retried or skipped; without one in the {@link ParkingLot}, in memory, holding nothing.
 *
 * <p>Flow control: a lane never waits for the event side (publishing does not wait for a consumer group). Instead,
 * new commands of a type are taken from the bus only while the event bus's intake gate of that type is open, and not
 * at all once the runtime began to stop; a saga's follow-up commands are always taken.
 */
public final class CommandDispatcher implements GroupedComponent {
    /**
     * Commands retry version conflicts and store outages: 10 retries, 10 ms doubling to 1 s, jitter 0.5 (about 5 s in
     * all). Under cross-instance contention on one aggregate the instance with the cached state usually wins, so the
     * other needs several tries; fewer retries parked commands in a two-instance PostgreSQL run.
     *
     * <p>A {@link HandlerTimeoutException} is not retried: the sender has waited the whole timeout already (as long as
     * {@link CommandResults#DEFAULT_TIMEOUT}), the cancelled attempt may still be finishing its append, and ten more
     * timeouts would hold the aggregate's lane for minutes. The command fails at once and its sender gets the timeout.
     */
    public static final RetryPolicy DEFAULT_RETRY_POLICY = RetryPolicy.DEFAULT
            .withMaxRetries(10)
            .withBackoff(Duration.ofMillis(10), Duration.ofSeconds(1))
            .withRetryable(error -> !(error instanceof HandlerTimeoutException)
                    && (!(error instanceof LanesException lanes) || lanes.isRecoverable()));

    /**
     * The seed's {@code HASHED} lanes with {@link #DEFAULT_RETRY_POLICY}; a full lane rejects back to the sender (the
     * gateway's caller gets {@code LANE_FULL} and may retry), so one hot aggregate never pauses the others.
     *
     * <p>Handler timeouts: {@link HandlerTimeout#DEFAULT}, as for processors: a command handler still running after 10 s
     * is logged at WARN, and one still running after 30 s is cancelled and fails with a {@link HandlerTimeoutException}
     * (not retried, see {@link #DEFAULT_RETRY_POLICY}): the sender is answered with it and the aggregate's next command
     * runs. Set others with {@code DEFAULT_SETTINGS.withHandlerTimeout(warning, timeout)}, or none with {@code
     * withoutHandlerTimeout()}, through {@link Builder#settings} or {@code Lanes.builder().commandSettings(...)}.
     */
    public static final LaneSettings DEFAULT_SETTINGS =
            LaneSettings.DEFAULT.withRetryPolicy(DEFAULT_RETRY_POLICY).withOverflow(LaneSettings.Overflow.REJECT);

    private final String name;
    private final AggregateSchedulerSupplier schedulers;
    private final List<AggregateDispatcher<CommandMessage>> dispatchers;
    private final List<IntakeGate> fronts = new ArrayList<>();
    private final RuntimeComponent group;

    private CommandDispatcher(Builder builder) {
        this.name = builder.name;
        AggregateSchedulerSupplier given = builder.schedulers;
        this.schedulers = given != null ? given : AggregateSchedulers.perType(name, builder.schedulerParallelism);
        this.dispatchers = new ArrayList<>();
        for (AggregateDefinition<?> definition : builder.definitions) {
            AggregateProcessor<?> processor = new AggregateProcessor<>(
                    definition,
                    builder.eventStore,
                    builder.snapshotStore,
                    builder.eventBus,
                    builder.results,
                    builder.cacheCapacity,
                    builder.interceptors,
                    builder.tracing);
            ParkingLot parkingLot = parked -> {
                builder.parkingLot.park(parked);
                if (parked.message() instanceof CommandMessage command) {
                    processor.forget(command);
                    LaneReports.failed(builder.results, command, parked.error());
                }
            };
            // declared now, so the bus takes commands for this type from the start; subscribed at prepare
            IntakeGate front = new IntakeGate(name + "/" + definition.namedAggregate() + " new commands");
            fronts.add(front);
            Flux<MessageExchange<CommandMessage>> commands = builder.commandBus.receive(
                    definition.namedAggregate(),
                    builder.eventBus.intakeGate(definition.namedAggregate()).and(front));
            ExchangeHandler<CommandMessage> handler = processor::handle;
            if (builder.parking != null) {
                CommandParking parking = Objects.requireNonNull(
                        builder.parking.apply(definition.namedAggregate()),
                        () -> "the command parking for " + definition.namedAggregate() + " is null");
                handler =
                        new ParkingCommandHandler(processor, parking, builder.settings.retryPolicy(), builder.results);
                commands = commands.map(AttemptedCommand::new);
            }
            dispatchers.add(AggregateDispatcher.<CommandMessage>builder(name, definition.namedAggregate())
                    .source(commands)
                    .handler(handler)
                    .schedulers(schedulers)
                    .settings(builder.settings)
                    .parkingLot(parkingLot)
                    .metrics(builder.metrics)
                    .build());
        }
        this.group = RuntimeComponent.group(name, dispatchers, schedulers);
    }

    /** Starts a builder; register at least one aggregate definition. */
    public static Builder builder(
            CommandBus commandBus, EventStore eventStore, DomainEventBus eventBus, CommandResults results) {
        return new Builder(commandBus, eventStore, eventBus, results);
    }

    /** Drains the children in reverse order, then stops the owned schedulers (see {@link RuntimeComponent#group}). */
    @Override
    public RuntimeComponent lifecycle() {
        return group;
    }

    /** Also arranges that new commands stop as soon as the runtime begins to stop (see {@link #stopTakingNew}). */
    @Override
    public Mono<Void> prepare(RuntimeContext context) {
        context.whenStopping(this::stopTakingNew);
        return group.prepare(context);
    }

    @Override
    public void quiesce() {
        stopTakingNew();
        group.quiesce();
    }

    /**
     * Takes no more new commands: those still waiting in the bus are handed back (their senders are answered that
     * they were stopped, nothing stored). Commands already taken, and follow-ups (a saga's commands, part of work in
     * progress), are still processed. Idempotent.
     */
    public void stopTakingNew() {
        fronts.forEach(IntakeGate::shut);
    }

    @Override
    public String name() {
        return name;
    }

    /** The lane engines, one per aggregate type, for stats and reports. */
    public List<AggregateDispatcher<CommandMessage>> dispatchers() {
        return List.copyOf(dispatchers);
    }

    /** The supplier this dispatcher owns and stops after its dispatchers drained. */
    public AggregateSchedulerSupplier schedulers() {
        return schedulers;
    }

    @Override
    public String toString() {
        return "CommandDispatcher[" + name + ", "
                + dispatchers.stream().map(AggregateDispatcher::namedAggregate).toList() + "]";
    }

    /** Collaborators are required at construction; everything else has a default. */
    public static final class Builder {
        private final CommandBus commandBus;
        private final EventStore eventStore;
        private final DomainEventBus eventBus;
        private final CommandResults results;
        private final List<AggregateDefinition<?>> definitions = new ArrayList<>();
        private String name = "CommandDispatcher";
        private SnapshotStore snapshotStore = SnapshotStore.NONE;
        private LaneSettings settings = DEFAULT_SETTINGS;
        private int cacheCapacity = 10_000;
        private final List<HandlerInterceptor> interceptors = new ArrayList<>();
        private int schedulerParallelism = reactor.core.scheduler.Schedulers.DEFAULT_POOL_SIZE;
        private DispatcherMetrics metrics = DispatcherMetrics.NONE;
        private MessageTracing tracing = MessageTracing.NONE;
        private ParkingLot parkingLot = ParkingLots.inMemory();
        private @Nullable Function<? super MaterializedNamedAggregate, ? extends CommandParking> parking;
        private @Nullable AggregateSchedulerSupplier schedulers;

        private Builder(CommandBus commandBus, EventStore eventStore, DomainEventBus eventBus, CommandResults results) {
            this.commandBus = Objects.requireNonNull(commandBus, "commandBus");
            this.eventStore = Objects.requireNonNull(eventStore, "eventStore");
            this.eventBus = Objects.requireNonNull(eventBus, "eventBus");
            this.results = Objects.requireNonNull(results, "results");
        }

        public Builder register(AggregateDefinition<?> definition) {
            Objects.requireNonNull(definition, "definition");
            for (AggregateDefinition<?> existing : definitions) {
                if (existing.namedAggregate().equals(definition.namedAggregate())) {
                    throw new IllegalArgumentException(definition.namedAggregate() + " is already registered");
                }
            }
            definitions.add(definition);
            return this;
        }

        /** Also names the scheduler threads: {@code <name>-<aggregate>-<n>}. */
        public Builder name(String name) {
            this.name = Require.notBlank(name, "name");
            return this;
        }

        public Builder snapshotStore(SnapshotStore snapshotStore) {
            this.snapshotStore = Objects.requireNonNull(snapshotStore, "snapshotStore");
            return this;
        }

        /** Lane strategy, bounds, retries and overflow; {@link #DEFAULT_SETTINGS} unless set. */
        public Builder settings(LaneSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * Adds a handler interceptor around every aggregate's handlers, inside the ones added before it (see {@link
         * HandlerInterceptor}).
         */
        public Builder handlerInterceptor(HandlerInterceptor interceptor) {
            interceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /** Aggregate states kept per type on this instance (0 disables the cache). */
        public Builder cacheCapacity(int cacheCapacity) {
            this.cacheCapacity = Require.notNegative(cacheCapacity, "cacheCapacity");
            return this;
        }

        /**
         * Workers per aggregate type of the default supplier ({@link AggregateSchedulers#perType}, threads named {@code
         * <name>-<aggregate>-<n>}); Reactor's default pool size unless set. Ignored when {@link #schedulers} is set.
         */
        public Builder schedulerParallelism(int schedulerParallelism) {
            this.schedulerParallelism = Require.positive(schedulerParallelism, "schedulerParallelism");
            return this;
        }

        /**
         * The supplier this dispatcher owns and stops after its dispatchers drained; by default {@link
         * AggregateSchedulers#perType} with this dispatcher's name. Give each dispatcher a supplier of its own.
         */
        public Builder schedulers(AggregateSchedulerSupplier schedulers) {
            this.schedulers = Objects.requireNonNull(schedulers, "schedulers");
            return this;
        }

        /**
         * Traces each command's attempt in its lane (load, decide, append, publish), and stores its events with the
         * lane's trace headers; {@link MessageTracing#NONE} unless set.
         */
        public Builder tracing(MessageTracing tracing) {
            this.tracing = Objects.requireNonNull(tracing, "tracing");
            return this;
        }

        public Builder metrics(DispatcherMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * Parks each aggregate type's commands whose retries are exhausted through the {@link CommandParking} this gives
         * for the type, and holds an aggregate's later commands behind them; the {@link #parkingLot} then takes only
         * what that parking cannot store. Unset by default: commands go to the parking lot and hold nothing.
         */
        public Builder parking(Function<? super MaterializedNamedAggregate, ? extends CommandParking> parking) {
            this.parking = Objects.requireNonNull(parking, "parking");
            return this;
        }

        /** Where commands go whose retries are exhausted; their senders get the last error as well. */
        public Builder parkingLot(ParkingLot parkingLot) {
            this.parkingLot = Objects.requireNonNull(parkingLot, "parkingLot");
            return this;
        }

        public CommandDispatcher build() {
            if (definitions.isEmpty()) {
                throw new IllegalStateException(name + " has no aggregate definition registered");
            }
            return new CommandDispatcher(this);
        }
    }
}
