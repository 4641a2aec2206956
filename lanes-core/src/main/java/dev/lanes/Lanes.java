package dev.lanes;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.command.CommandBus;
import dev.lanes.command.CommandBuses;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandGateways;
import dev.lanes.command.CommandResults;
import dev.lanes.command.DispatchInterceptor;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.command.lane.HandlerInterceptor;
import dev.lanes.deadline.DeadlineRunner;
import dev.lanes.deadline.DeadlineStore;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.ParkingLot;
import dev.lanes.dispatch.ParkingLots;
import dev.lanes.event.DomainEventBus;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.internal.Require;
import dev.lanes.internal.route.BoundedRoute;
import dev.lanes.lifecycle.GracefullyStoppable;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.process.ProcessManager;
import dev.lanes.processing.CompositeEventDispatcher;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.deadletter.CommandDeadLetters;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.deadletter.DeadLetters;
import dev.lanes.processing.tracking.TrackingProcessor;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import dev.lanes.tracing.MessageTracing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * One service instance, wired: the entry point of Lanes.
 *
 * <pre>{@code
 * try (Lanes lanes = Lanes.builder()
 *         .aggregate(Bank.definition())
 *         .processor(balances.processor())    // a projection
 *         .processor(TransferSaga::processor) // a saga: it is given the gateway
 *         .build()
 *         .start()) {
 *     lanes.gateway().send(Bank.account("acc-1"), new Deposit(100), WaitStage.PROJECTED).block();
 * }
 * }</pre>
 *
 * <p>What {@link Builder#build()} wires: the event store (in memory unless given), the snapshot store (none unless
 * given), the command bus (in memory unless a factory is given) and the {@link CommandResults} its senders wait in, the {@link CommandGateway}, one
 * {@link CommandDispatcher} for every aggregate, an in-memory event bus (unless given) and one {@link
 * CompositeEventDispatcher} for every processor (none without processors), all under one {@link LanesRuntime}: the
 * infrastructure components given to {@link Builder#component} first, then the command side, then the event side.
 *
 * <p>Building starts nothing: {@link #start()} (or {@code runtime().start()}) prepares, then starts every component.
 * {@link #stop()} and {@link #close()} stop gracefully; {@code runtime().shutdown()} does the same and returns the
 * {@link ShutdownReport}. There is no restart.
 */
public final class Lanes implements GracefullyStoppable {
    private static final Logger log = LoggerFactory.getLogger(Lanes.class);
    /** How long the runtime's stop may take before it forces what is left, unless set: 30 seconds. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

    /**
     * How long no activity lease may be open, once stopping, before the runtime closes admission, unless set: 200 ms.
     * Tail work (a saga's commands and their replies) is admitted meanwhile.
     */
    public static final Duration DEFAULT_QUIET_PERIOD = Duration.ofMillis(200);

    /** How long {@link #start()} waits for every component to be prepared and started: 30 seconds. */
    public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(30);

    /** The name of the command dispatcher, and the prefix of its threads ({@code CommandDispatcher-<aggregate>-<n>}). */
    public static final String COMMAND_DISPATCHER = "CommandDispatcher";

    /** The name of the event dispatcher, and the prefix of its threads ({@code EventDispatcher-<aggregate>-<n>}). */
    public static final String EVENT_DISPATCHER = "EventDispatcher";

    /**
     * With {@link Builder#sharedWorkers}: the name of the component that owns the shared pool, and the prefix of its
     * threads ({@code Workers-shared-<n>}).
     */
    public static final String SHARED_WORKERS = "Workers";

    private final LanesRuntime runtime;
    private final CommandGateway gateway;
    private final CommandResults results;
    private final EventStore eventStore;
    private final CommandDispatcher commands;
    private final @Nullable CompositeEventDispatcher events;
    private final DeadLetters deadLetters;

    private Lanes(
            LanesRuntime runtime,
            CommandGateway gateway,
            CommandResults results,
            EventStore eventStore,
            CommandDispatcher commands,
            @Nullable CompositeEventDispatcher events,
            DeadLetters deadLetters) {
        this.runtime = runtime;
        this.gateway = gateway;
        this.results = results;
        this.eventStore = eventStore;
        this.commands = commands;
        this.events = events;
        this.deadLetters = deadLetters;
    }

    /** Starts a builder; register at least one {@link Builder#aggregate aggregate}. */
    public static Builder builder() {
        return new Builder();
    }

    /** The runtime that owns every component; not started by {@link Builder#build()}. */
    public LanesRuntime runtime() {
        return runtime;
    }

    /** Where application code sends commands. */
    public CommandGateway gateway() {
        return gateway;
    }

    /** Where the senders' waits live: how many are in flight, the default timeout. */
    public CommandResults commandResults() {
        return results;
    }

    /** The event store the command dispatcher appends to (the in-memory one unless another was given). */
    public EventStore eventStore() {
        return eventStore;
    }

    /** The command side: one lane engine per aggregate type, for stats and reports. */
    public CommandDispatcher commandDispatcher() {
        return commands;
    }

    /** The event side, present when at least one processor was registered. */
    public Optional<CompositeEventDispatcher> eventDispatcher() {
        return Optional.ofNullable(events);
    }

    /**
     * The parked event streams of every processor, fed by the bus or tracking the store, and the parked commands of
     * every aggregate type (processor {@code commands:<type>}, see {@link CommandDeadLetters}): list, retry and skip
     * them per processor and aggregate (see {@link DeadLetters}); a processor's retry runs in its lane, a command's is
     * sent again through the gateway.
     */
    public DeadLetters deadLetters() {
        return deadLetters;
    }

    /** {@link #start(Duration)} waiting at most {@link #DEFAULT_START_TIMEOUT}. */
    public Lanes start() {
        return start(DEFAULT_START_TIMEOUT);
    }

    /**
     * Starts the runtime (prepares every component in order, then starts each) and waits until it runs. Call it from a
     * thread Lanes does not use.
     *
     * @return this, running
     * @throws IllegalStateException naming the runtime when it was started before, or does not start within {@code
     *     timeout} (the start itself goes on), or the waiting thread is interrupted
     * @throws RuntimeException the failure of a component that did not prepare or start (the runtime rolled back)
     */
    public Lanes start(Duration timeout) {
        Require.positive(timeout, "timeout");
        try {
            runtime.start().toFuture().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return this;
        } catch (TimeoutException e) {
            throw new IllegalStateException(runtime + " did not start within " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for " + runtime + " to start", e);
        } catch (CancellationException e) {
            throw new IllegalStateException(runtime + " start was cancelled", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException runtimeException) {
                throw runtimeException;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(runtime + " failed to start", cause);
        }
    }

    /** The runtime's graceful stop: completes empty when it drained, errors with its primary failure otherwise. */
    @Override
    public Mono<Void> stopGracefully() {
        return runtime.stopGracefully();
    }

    /** Stops gracefully, waiting up to the shutdown timeout plus a second (see {@link LanesRuntime#stop()}). */
    @Override
    public void stop() {
        runtime.stop();
    }

    @Override
    public String toString() {
        return "Lanes[" + commands + (events == null ? "" : ", " + events) + ", " + runtime + "]";
    }

    /**
     * Collects the aggregates, processors and infrastructure of one service instance; every setting has a default
     * except the aggregates. Setters check their argument at once, naming it; {@link #build()} checks how they fit
     * together. Not thread-safe; build once.
     */
    public static final class Builder {
        private final Map<MaterializedNamedAggregate, AggregateDefinition<?>> aggregates = new LinkedHashMap<>();
        private final List<Function<? super CommandGateway, EventProcessor>> processors = new ArrayList<>();
        private final List<BiFunction<? super EventStore, ? super DeadLetterQueue, TrackingProcessor>>
                trackingProcessors = new ArrayList<>();
        private @Nullable EventStore eventStore;
        private SnapshotStore snapshotStore = SnapshotStore.NONE;
        private @Nullable DomainEventBus eventBus;
        private @Nullable Function<? super CommandResults, ? extends CommandBus> commandBus;
        private final List<RuntimeComponent> components = new ArrayList<>();
        private @Nullable BiFunction<? super CommandGateway, ? super DeadLetterQueue, DeadlineRunner> deadlineRunner;
        /** The process managers that react to deadlines, by name, and where each keeps them. */
        private final Map<String, DeadlineStore> managersWithDeadlines = new LinkedHashMap<>();

        private int commandBusCapacity = CommandBuses.DEFAULT_CAPACITY_PER_TYPE;
        private LaneSettings commandSettings = CommandDispatcher.DEFAULT_SETTINGS;
        private LaneSettings eventSettings = LaneSettings.DEFAULT;
        private Function<String, AggregateSchedulerSupplier> schedulers = AggregateSchedulers::perType;
        private int sharedWorkers; // 0: each dispatcher its own supplier, from schedulers
        private DispatcherMetrics metrics = DispatcherMetrics.NONE;
        private MessageTracing tracing = MessageTracing.NONE;
        private @Nullable ParkingLot commandParkingLot;
        private @Nullable ParkingLot eventParkingLot;
        private @Nullable DeadLetterQueue deadLetterQueue;
        private Duration commandTimeout = CommandResults.DEFAULT_TIMEOUT;
        private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
        private Duration quietPeriod = DEFAULT_QUIET_PERIOD;
        private Scheduler timer = Schedulers.parallel();
        private final List<DispatchInterceptor> dispatchInterceptors = new ArrayList<>();
        private final List<HandlerInterceptor> handlerInterceptors = new ArrayList<>();

        private Builder() {}

        /**
         * Adds a dispatch interceptor: the gateway runs it on every send, after the ones added before it (see {@link
         * DispatchInterceptor} for its contract).
         */
        public Builder dispatchInterceptor(DispatchInterceptor interceptor) {
            dispatchInterceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /**
         * Adds a handler interceptor: it runs in the aggregate's lane around every command handler, inside the ones
         * added before it (see {@link HandlerInterceptor} for its contract).
         */
        public Builder handlerInterceptor(HandlerInterceptor interceptor) {
            handlerInterceptors.add(Objects.requireNonNull(interceptor, "interceptor"));
            return this;
        }

        /**
         * Registers an aggregate type: the command dispatcher takes its commands, in one lane engine.
         *
         * @throws IllegalArgumentException naming the type when an aggregate of that type is registered already
         */
        public Builder aggregate(AggregateDefinition<?> definition) {
            Objects.requireNonNull(definition, "definition");
            AggregateDefinition<?> existing = aggregates.putIfAbsent(definition.namedAggregate(), definition);
            if (existing != null) {
                throw new IllegalArgumentException("aggregate " + definition.namedAggregate() + " is registered twice: "
                        + existing + " and " + definition);
            }
            return this;
        }

        /** Registers an event processor (handler, projection, saga, snapshotter); its name must be unique. */
        public Builder processor(EventProcessor processor) {
            Objects.requireNonNull(processor, "processor");
            return processor(gateway -> processor);
        }

        /**
         * Registers a process manager: the aggregate of its instances ({@link ProcessManager#definition()}) and the saga
         * that routes events to them ({@link ProcessManager#processor}). A manager that reacts to deadlines needs a
         * {@link DeadlineRunner} over its store somewhere: without {@link #deadlines(DeadlineStore)} on this builder,
         * {@link #build()} warns, naming the manager, since its deadlines then fire only if another process runs one.
         */
        public Builder processManager(ProcessManager<?> manager) {
            aggregate(manager.definition());
            processor(manager::processor);
            if (!manager.deadlineNames().isEmpty()) {
                managersWithDeadlines.put(manager.name(), manager.deadlineStore());
            }
            return this;
        }

        /**
         * Registers an event processor made with this instance's gateway, as a saga needs ({@code
         * TransferSaga::processor}). Called once, by {@link #build()}.
         */
        public Builder processor(Function<? super CommandGateway, EventProcessor> factory) {
            processors.add(Objects.requireNonNull(factory, "factory"));
            return this;
        }

        /**
         * Registers a tracking processor made from this instance's event store and dead-letter queue ({@code (store,
         * deadLetters) -> TrackingProcessor.builder(projection, store, checkpoints).deadLetterQueue(deadLetters)
         * .build()}): it reads the store from its checkpoint instead of the bus, parks in the queue the bus-fed
         * processors park in (so {@link Lanes#deadLetters()} and {@code lanes parked} reach its sequences), and runs
         * under the runtime after the dispatchers. Called once, by {@link #build()}, which refuses a processor built
         * with another queue, or named as another processor.
         */
        public Builder trackingProcessor(
                BiFunction<? super EventStore, ? super DeadLetterQueue, TrackingProcessor> factory) {
            trackingProcessors.add(Objects.requireNonNull(factory, "factory"));
            return this;
        }

        /** Where streams are appended and loaded from; a new in-memory store ({@link EventStores#inMemory()}) unless set. */
        public Builder eventStore(EventStore eventStore) {
            this.eventStore = Objects.requireNonNull(eventStore, "eventStore");
            return this;
        }

        /** Where aggregates' snapshots are loaded from; {@link SnapshotStore#NONE} (replay from version 1) unless set. */
        public Builder snapshotStore(SnapshotStore snapshotStore) {
            this.snapshotStore = Objects.requireNonNull(snapshotStore, "snapshotStore");
            return this;
        }

        /**
         * The bus that carries appended streams to the processors; {@link DomainEventBuses#inMemory()} (a budget of
         * {@value DomainEventBuses#DEFAULT_BUDGET} streams per consumer group) unless set.
         */
        public Builder eventBus(DomainEventBus eventBus) {
            this.eventBus = Objects.requireNonNull(eventBus, "eventBus");
            return this;
        }

        /**
         * Makes the bus that carries commands from the gateway to the command dispatcher, given the {@link
         * CommandResults} its senders wait in (a distributed bus reports outcomes from other instances there). Called
         * once, by {@link #build()}. The in-memory bus ({@link CommandBuses#inMemory(int, CommandResults)} with the
         * {@link #commandBusCapacity} capacity) unless set.
         */
        public Builder commandBus(Function<? super CommandResults, ? extends CommandBus> factory) {
            this.commandBus = Objects.requireNonNull(factory, "commandBus");
            return this;
        }

        /**
         * Fires the due deadlines of {@code store} while the runtime runs: a {@link DeadlineRunner} on the system clock
         * with {@link DeadlineRunner.Settings#DEFAULT}, sending through this instance's gateway and parking in its
         * dead-letter queue; started after the dispatchers, stopped before them.
         */
        public Builder deadlines(DeadlineStore store) {
            Objects.requireNonNull(store, "store");
            return deadlines((gateway, parked) -> DeadlineRunner.create(store, gateway, parked));
        }

        /**
         * Fires deadlines with the runner {@code factory} makes from this instance's gateway and dead-letter queue (a
         * runner on a virtual clock in tests: {@code DeadlineRunner.create(store, gateway, parked, clock, scheduler,
         * settings)}); started after the dispatchers, stopped before them.
         *
         * @throws IllegalStateException if deadlines were set already
         */
        public Builder deadlines(BiFunction<? super CommandGateway, ? super DeadLetterQueue, DeadlineRunner> factory) {
            Objects.requireNonNull(factory, "factory");
            if (deadlineRunner != null) {
                throw new IllegalStateException("deadlines(...) is set already: one deadline runner per instance");
            }
            deadlineRunner = factory;
            return this;
        }

        /**
         * Adds a runtime component of the infrastructure (a bus's connection, its consumers), in the order of the
         * calls: the runtime prepares and starts these before the dispatchers and stops them after the dispatchers
         * drained, in reverse order, under the same deadline. Lanes does not build or configure them.
         *
         * @throws IllegalArgumentException naming the component when it is added twice
         */
        public Builder component(RuntimeComponent component) {
            Objects.requireNonNull(component, "component");
            if (components.contains(component)) {
                throw new IllegalArgumentException("component " + component.name() + " is added twice");
            }
            components.add(component);
            return this;
        }

        /**
         * New commands the in-memory command bus holds per aggregate type before a send fails fast; {@value
         * CommandBuses#DEFAULT_CAPACITY_PER_TYPE} unless set.
         *
         * @throws IllegalArgumentException naming the value if not positive or above 2^30
         */
        public Builder commandBusCapacity(int capacityPerType) {
            this.commandBusCapacity = BoundedRoute.requireCapacity(capacityPerType, "commandBusCapacity");
            return this;
        }

        /**
         * Lane settings of the command dispatcher; {@link CommandDispatcher#DEFAULT_SETTINGS} unless set. Its handler
         * timeout (warning at 10 s, timeout at 30 s, not retried) is changed with e.g. {@code
         * commandSettings(CommandDispatcher.DEFAULT_SETTINGS.withHandlerTimeout(Duration.ofSeconds(2),
         * Duration.ofSeconds(5)))}, and turned off with {@code withoutHandlerTimeout()}.
         */
        public Builder commandSettings(LaneSettings settings) {
            this.commandSettings = Objects.requireNonNull(settings, "commandSettings");
            return this;
        }

        /**
         * Lane settings of every processor; {@link LaneSettings#DEFAULT} unless set. Keep its {@code PAUSE} overflow
         * with the in-memory event bus, which cannot redeliver a rejected stream. Its handler timeout (warning at 10
         * s, timeout at 30 s, retried by the retry policy) is changed with e.g. {@code
         * eventSettings(LaneSettings.DEFAULT.withHandlerTimeout(Duration.ofSeconds(5), Duration.ofSeconds(20)))}.
         */
        public Builder eventSettings(LaneSettings settings) {
            this.eventSettings = Objects.requireNonNull(settings, "eventSettings");
            return this;
        }

        /**
         * Makes the scheduler supplier of each dispatcher from its name ({@value #COMMAND_DISPATCHER}, {@value
         * #EVENT_DISPATCHER}); each dispatcher owns and stops the one it gets, so return a new one per call. {@link
         * AggregateSchedulers#perType(String)} unless set; e.g. {@code name -> AggregateSchedulers.sharedPool(name, 4)}.
         */
        public Builder schedulers(Function<String, AggregateSchedulerSupplier> perDispatcher) {
            this.schedulers = Objects.requireNonNull(perDispatcher, "schedulers");
            this.sharedWorkers = 0;
            return this;
        }

        /**
         * Runs the lanes of every dispatcher on one pool of {@code workers} threads, named {@value
         * #SHARED_WORKERS}{@code -shared-<n>}, instead of a pool per dispatcher and aggregate type: on few cores, fewer
         * threads to put to sleep and wake, as a command's lane hands its events to the same workers. Each aggregate type
         * still has its own scheduler per dispatcher and each lane still runs one message at a time; only the threads are
         * shared. The runtime owns the pool: it is the first component (named {@value #SHARED_WORKERS}), so it stops
         * after every dispatcher has drained or been forced.
         *
         * <p>The price of sharing: a handler that holds a worker long (a slow projection) holds it from the command lanes
         * too. Keep the default (each dispatcher its own workers) where one side must never wait for the other. Replaces
         * {@link #schedulers}; a later call of {@link #schedulers} replaces this.
         *
         * @throws IllegalArgumentException naming the value if {@code workers <= 0}
         */
        public Builder sharedWorkers(int workers) {
            if (workers <= 0) {
                throw new IllegalArgumentException("sharedWorkers must be positive: " + workers);
            }
            this.sharedWorkers = workers;
            return this;
        }

        /**
         * Traces every send through the gateway (a saga's commands included), every command's attempt in its lane (load,
         * decide, append, publish) and every bus-fed processor's handling of a stream, linked through the trace
         * headers the messages carry ({@link MessageTracing}); {@link MessageTracing#NONE} (nothing traced, no header
         * added) unless set. The {@code lanes-opentelemetry} module binds it: {@code
         * tracing(LanesTracing.of(openTelemetry))}. A tracking processor is traced when built with {@code
         * TrackingProcessor.Builder#tracing}.
         */
        public Builder tracing(MessageTracing tracing) {
            this.tracing = Objects.requireNonNull(tracing, "tracing");
            return this;
        }

        /** Where every dispatcher records its metrics; {@link DispatcherMetrics#NONE} unless set. */
        public Builder metrics(DispatcherMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /**
         * Where commands go whose retries ran out when the {@link #deadLetterQueue} cannot park commands (a queue that
         * does not implement {@code enqueueCommand}); a new {@link ParkingLots#inMemory()} unless set. Every queue Lanes
         * ships parks them as dead letters (see {@link CommandDeadLetters}).
         */
        public Builder commandParkingLot(ParkingLot parkingLot) {
            this.commandParkingLot = Objects.requireNonNull(parkingLot, "commandParkingLot");
            return this;
        }

        /**
         * Where saga replies go whose retries ran out, and event streams the dead-letter queue could not store; a new
         * {@link ParkingLots#inMemory()} unless set, which {@code CompositeEventDispatcher.replayParked()} can replay.
         */
        public Builder eventParkingLot(ParkingLot parkingLot) {
            this.eventParkingLot = Objects.requireNonNull(parkingLot, "eventParkingLot");
            return this;
        }

        /**
         * Where event streams go whose retries ran out, in sequences per processor and aggregate that hold the
         * aggregate's later streams for that processor until retried or skipped ({@link Lanes#deadLetters()}); a new
         * {@link DeadLetterQueues#inMemory()} unless set ({@code PostgresDeadLetterQueue} keeps them across restarts).
         * The event side reloads it whenever the event bus moves work to this instance ({@link
         * DeadLetterQueue#reload}), a tracking processor whenever it takes its claim. Tracking processors are given it
         * ({@link #trackingProcessor}).
         */
        public Builder deadLetterQueue(DeadLetterQueue deadLetterQueue) {
            this.deadLetterQueue = Objects.requireNonNull(deadLetterQueue, "deadLetterQueue");
            return this;
        }

        /**
         * How long a sender waits when it names no timeout; {@link CommandResults#DEFAULT_TIMEOUT} unless set.
         *
         * @throws IllegalArgumentException naming the value if not positive
         */
        public Builder commandTimeout(Duration timeout) {
            this.commandTimeout = Require.positive(timeout, "commandTimeout");
            return this;
        }

        /**
         * The deadline of the runtime's stop, after which it forces what is left; {@link #DEFAULT_SHUTDOWN_TIMEOUT}
         * unless set.
         *
         * @throws IllegalArgumentException naming the value if not positive
         */
        public Builder shutdownTimeout(Duration timeout) {
            this.shutdownTimeout = Require.positive(timeout, "shutdownTimeout");
            return this;
        }

        /**
         * How long no activity lease may be open, once stopping, before admission closes; {@link
         * #DEFAULT_QUIET_PERIOD} unless set. Must be shorter than the shutdown timeout.
         *
         * @throws IllegalArgumentException naming the value if negative
         */
        public Builder quietPeriod(Duration quietPeriod) {
            this.quietPeriod = Require.notNegative(quietPeriod, "quietPeriod");
            return this;
        }

        /**
         * Where the senders' timeouts and the runtime's quiet period and deadline are timed; Reactor's parallel
         * scheduler unless set (a {@code VirtualTimeScheduler} in tests). Never disposed by Lanes.
         */
        public Builder timer(Scheduler timer) {
            this.timer = Objects.requireNonNull(timer, "timer");
            return this;
        }

        /**
         * Wires the instance; starts nothing.
         *
         * @throws IllegalStateException when no aggregate is registered
         * @throws IllegalArgumentException naming the value when settings do not fit together: two processors of one
         *     name, a processor of an aggregate type no aggregate registers (with the in-memory event bus it would never
         *     receive an event), a tracking processor built with another dead-letter queue than the one its factory is
         *     given, or named as another processor, a quiet period not shorter than the shutdown timeout, one scheduler supplier for both
         *     dispatchers
         */
        public Lanes build() {
            if (aggregates.isEmpty()) {
                throw new IllegalStateException(
                        "Lanes needs at least one aggregate: register its definition with aggregate(definition)");
            }
            if (quietPeriod.compareTo(shutdownTimeout) >= 0) {
                throw new IllegalArgumentException(
                        "quietPeriod must be shorter than shutdownTimeout: " + quietPeriod + " >= " + shutdownTimeout);
            }
            if (deadlineRunner == null && !managersWithDeadlines.isEmpty()) {
                log.warn(
                        "Lanes runs the process manager(s) {}, which react to deadlines, but no deadline runner: their"
                                + " deadlines are stored and fire only if another process runs a DeadlineRunner over"
                                + " their store; to fire them here, add deadlines(store) to Lanes.builder()",
                        managersWithDeadlines.keySet());
            }
            CommandResults results = new CommandResults(commandTimeout, timer);
            EventStore store = eventStore != null ? eventStore : EventStores.inMemory();
            CommandBus commandBus = makeCommandBus(results);
            DomainEventBus bus = eventBus != null ? eventBus : DomainEventBuses.inMemory();
            CommandGateway gateway = CommandGateways.traced(
                    CommandGateways.create(commandBus, store, results, dispatchInterceptors), tracing);
            List<EventProcessor> made = processors(gateway, eventBus == null);
            DeadLetterQueue queue = deadLetterQueue != null ? deadLetterQueue : DeadLetterQueues.inMemory();
            if (store.durable() && !queue.durable()) {
                log.warn(
                        "Lanes keeps its events in {} but parks failed commands and events in {}, which is lost with"
                                + " the process: after a restart the parked messages are gone and their aggregates are"
                                + " no longer held; give it a durable dead-letter queue"
                                + " (deadLetterQueue(PostgresDeadLetterQueue.open(...)))",
                        store,
                        queue);
            }
            if (store.durable()) {
                managersWithDeadlines.forEach((manager, deadlines) -> {
                    if (!deadlines.durable()) {
                        log.warn(
                                "Lanes keeps its events in {} but the process manager {} keeps its deadlines in {},"
                                        + " which is lost with the process: after a restart its instances wait for"
                                        + " deadlines that never fire; give it a durable deadline store"
                                        + " (postgresEventStore.deadlineStore())",
                                store,
                                manager,
                                deadlines);
                    }
                });
            }
            List<TrackingProcessor> tracking = trackingProcessors(store, queue, made);
            @Nullable
            AggregateSchedulerSupplier shared =
                    sharedWorkers > 0 ? AggregateSchedulers.sharedPool(SHARED_WORKERS, sharedWorkers) : null;
            AggregateSchedulerSupplier commandSchedulers = supplier(COMMAND_DISPATCHER, shared);
            @Nullable
            AggregateSchedulerSupplier eventSchedulers = made.isEmpty() ? null : supplier(EVENT_DISPATCHER, shared);
            if (commandSchedulers == eventSchedulers) {
                commandSchedulers.forceStop();
                throw new IllegalArgumentException("schedulers(...) returned one supplier for " + COMMAND_DISPATCHER
                        + " and " + EVENT_DISPATCHER + " (" + commandSchedulers
                        + "); each dispatcher owns and stops its own: return a new one per call");
            }
            CommandDeadLetters commandLetters = CommandDeadLetters.create(queue, gateway, aggregates.keySet(), timer);
            CommandDispatcher commands =
                    commandDispatcher(commandBus, store, bus, results, commandSchedulers, commandLetters);
            @Nullable
            CompositeEventDispatcher events =
                    eventSchedulers == null ? null : eventDispatcher(bus, results, made, queue, eventSchedulers);
            List<RuntimeComponent> ordered = new ArrayList<>();
            if (shared != null) {
                ordered.add(new SharedWorkers(SHARED_WORKERS, shared)); // first: stopped last
            }
            ordered.addAll(components);
            ordered.add(commands);
            if (events != null) {
                ordered.add(events);
            }
            ordered.addAll(tracking);
            ordered.add(commandLetters); // stopped first: no requested retry is taken once the runtime stops
            if (deadlineRunner != null) { // started last, stopped first: it sends commands
                DeadlineRunner runner = Objects.requireNonNull(
                        deadlineRunner.apply(gateway, queue), "the deadline runner factory returned null");
                ordered.add(runner.component());
            }
            LanesRuntime runtime = new LanesRuntime(ordered, shutdownTimeout, quietPeriod, timer);
            return new Lanes(
                    runtime,
                    gateway,
                    results,
                    store,
                    commands,
                    events,
                    deadLetters(queue, events, tracking, commandLetters));
        }

        private List<TrackingProcessor> trackingProcessors(
                EventStore store, DeadLetterQueue queue, List<EventProcessor> fedByBus) {
            Set<String> names = new HashSet<>();
            fedByBus.forEach(processor -> names.add(processor.name()));
            List<TrackingProcessor> made = new ArrayList<>();
            for (BiFunction<? super EventStore, ? super DeadLetterQueue, TrackingProcessor> factory :
                    trackingProcessors) {
                TrackingProcessor tracking = Objects.requireNonNull(
                        factory.apply(store, queue), () -> "tracking processor factory " + factory + " returned null");
                if (tracking.deadLetterQueue() != queue) {
                    throw new IllegalArgumentException(tracking.name() + " parks in a dead-letter queue of its own ("
                            + tracking.deadLetterQueue() + "), not in this instance's dead-letter queue (" + queue
                            + "): build it with .deadLetterQueue(queue), the queue its factory is given");
                }
                for (String name : tracking.deadLetters().processors()) {
                    if (!names.add(name)) {
                        throw new IllegalArgumentException(
                                "processor '" + name + "' is registered twice (" + tracking.name()
                                        + "): its dead letters and checkpoint are kept under its name, so it needs one of"
                                        + " its own");
                    }
                }
                made.add(tracking);
            }
            return made;
        }

        /** The command side's, the event side's and the tracking processors' over the one queue. */
        private static DeadLetters deadLetters(
                DeadLetterQueue queue,
                @Nullable CompositeEventDispatcher events,
                List<TrackingProcessor> tracking,
                CommandDeadLetters commands) {
            List<DeadLetters> parts = new ArrayList<>();
            parts.add(commands);
            if (events != null) {
                parts.add(events.deadLetters());
            }
            tracking.forEach(processor -> parts.add(processor.deadLetters()));
            return DeadLetters.combine("Lanes", queue, parts);
        }

        private CommandBus makeCommandBus(CommandResults results) {
            if (commandBus == null) {
                return CommandBuses.inMemory(commandBusCapacity, results);
            }
            return Objects.requireNonNull(
                    commandBus.apply(results), () -> "commandBus factory " + commandBus + " returned null");
        }

        private List<EventProcessor> processors(CommandGateway gateway, boolean inMemoryBus) {
            List<EventProcessor> made = new ArrayList<>();
            Set<String> names = new HashSet<>();
            for (Function<? super CommandGateway, EventProcessor> factory : processors) {
                EventProcessor processor = Objects.requireNonNull(
                        factory.apply(gateway), () -> "processor factory " + factory + " returned null");
                if (!names.add(processor.name())) {
                    throw new IllegalArgumentException("processor '" + processor.name() + "' is registered twice: "
                            + "each processor is a consumer group and needs a name of its own");
                }
                if (inMemoryBus) {
                    requireKnownTypes(processor);
                }
                made.add(processor);
            }
            return made;
        }

        private void requireKnownTypes(EventProcessor processor) {
            for (MaterializedNamedAggregate type : processor.aggregateTypes()) {
                if (!aggregates.containsKey(type)) {
                    throw new IllegalArgumentException("processor '" + processor.name() + "' handles events of " + type
                            + ", which no aggregate registers (registered: " + registered()
                            + "); on the in-memory event bus it would never receive an event");
                }
            }
        }

        private String registered() {
            Set<String> names = new TreeSet<>();
            aggregates.keySet().forEach(type -> names.add(type.toString()));
            return String.join(", ", names);
        }

        /** A view of the shared pool when there is one, or the dispatcher's own supplier. */
        private AggregateSchedulerSupplier supplier(String dispatcher, @Nullable AggregateSchedulerSupplier shared) {
            if (shared != null) {
                return AggregateSchedulers.borrowed(shared);
            }
            return Objects.requireNonNull(
                    schedulers.apply(dispatcher), () -> "schedulers(...) returned null for " + dispatcher);
        }

        private CommandDispatcher commandDispatcher(
                CommandBus commandBus,
                EventStore store,
                DomainEventBus bus,
                CommandResults results,
                AggregateSchedulerSupplier owned,
                CommandDeadLetters letters) {
            CommandDispatcher.Builder builder = CommandDispatcher.builder(commandBus, store, bus, results)
                    .name(COMMAND_DISPATCHER)
                    .parking(letters::parking)
                    .snapshotStore(snapshotStore)
                    .settings(commandSettings)
                    .metrics(metrics)
                    .tracing(tracing)
                    .parkingLot(commandParkingLot != null ? commandParkingLot : ParkingLots.inMemory())
                    .schedulers(owned);
            aggregates.values().forEach(builder::register);
            handlerInterceptors.forEach(builder::handlerInterceptor);
            return builder.build();
        }

        private CompositeEventDispatcher eventDispatcher(
                DomainEventBus bus,
                CommandResults results,
                List<EventProcessor> made,
                DeadLetterQueue queue,
                AggregateSchedulerSupplier owned) {
            CompositeEventDispatcher.Builder builder = CompositeEventDispatcher.builder(EVENT_DISPATCHER, bus)
                    .commandResults(results)
                    .settings(eventSettings)
                    .metrics(metrics)
                    .tracing(tracing)
                    .parkingLot(eventParkingLot != null ? eventParkingLot : ParkingLots.inMemory())
                    .deadLetterQueue(queue)
                    .schedulers(owned);
            made.forEach(builder::processor);
            return builder.build();
        }
    }
}
