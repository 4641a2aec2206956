package dev.lanes.processing;

import dev.lanes.command.CommandResults;
import dev.lanes.command.ProjectionListener;
import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.ParkedMessage;
import dev.lanes.dispatch.ParkingLot;
import dev.lanes.dispatch.ParkingLots;
import dev.lanes.dispatch.RetainingParkingLot;
import dev.lanes.event.DomainEventBus;
import dev.lanes.internal.Require;
import dev.lanes.lifecycle.GroupedComponent;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.deadletter.DeadLetters;
import dev.lanes.processing.deadletter.LaneDeadLetters;
import dev.lanes.processing.deadletter.RetryOutcome;
import dev.lanes.processing.deadletter.RetryRequestPolling;
import dev.lanes.processing.saga.SagaReply;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import dev.lanes.tracing.MessageTracing;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The event side of one instance: its processors (handlers, projections, sagas, snapshotters), each a consumer group on
 * the domain event bus, running on the schedulers of one supplier that this component owns.
 *
 * <p>Ownership: every child gets a borrowed view ({@link AggregateSchedulers#borrowed}); a child's stop or force never
 * disposes the shared schedulers. Only this component stops the real supplier, once, after its children drained.
 *
 * <p>Lifecycle: prepare subscribes every child to the bus before any child gets demand (start), so nothing published
 * at start is lost. Graceful stop closes every child's intake, drains the children in reverse order, then stops the
 * supplier. Force forces the children in reverse order, then the supplier; a force before the graceful stop was
 * subscribed turns the supplier's graceful stop into a no-op.
 *
 * <p>Dead letters: building registers the dead-letter queue's {@link DeadLetterQueue#reload} with the bus ({@link
 * DomainEventBus#onAssignment}), so an instance that takes over aggregates from another one knows which of their
 * sequences that one parked before it hands out their streams; and, for each processor, the queue's {@link
 * DeadLetterQueue#claim} ({@link DomainEventBus#claimAssignments}), which runs before that reload, so that the instance
 * that held the work before can no longer park for it once this one took it.
 */
public final class CompositeEventDispatcher implements GroupedComponent {
    /** How often retries requested from outside are taken from the dead-letter queue, unless set: 5 seconds. */
    public static final Duration DEFAULT_RETRY_REQUEST_POLL = Duration.ofSeconds(5);

    private final String name;
    private final AggregateSchedulerSupplier schedulers;
    private final List<ProcessorDispatcher> children;
    private final Map<String, EventProcessor> processors;
    private final ParkingLot parkingLot;
    private final DeadLetterQueue deadLetterQueue;
    private final DeadLetters deadLetters;
    private final RuntimeComponent group;
    private final RetryRequestPolling polling;

    private CompositeEventDispatcher(Builder builder) {
        this.name = builder.name;
        this.schedulers = builder.schedulers != null
                ? builder.schedulers
                : AggregateSchedulers.perType(name, builder.schedulerParallelism);
        this.parkingLot = builder.parkingLot;
        this.deadLetterQueue = builder.deadLetterQueue;
        builder.eventBus.onAssignment(new Reload(deadLetterQueue));
        AggregateSchedulerSupplier borrowed = AggregateSchedulers.borrowed(schedulers);
        this.processors = new LinkedHashMap<>();
        this.children = new ArrayList<>();
        for (EventProcessor processor : builder.processors) {
            processors.put(processor.name(), processor);
            builder.eventBus.claimAssignments(processor.name(), deadLetterQueue::claim);
            children.add(new ProcessorDispatcher(
                    processor,
                    builder.eventBus,
                    borrowed,
                    builder.settings,
                    parkingLot,
                    deadLetterQueue,
                    builder.metrics,
                    builder.tracing,
                    projectionListener(processor, builder.results)));
        }
        Map<String, LaneDeadLetters.Lanes> lanes = new LinkedHashMap<>();
        children.forEach(child -> lanes.put(child.name(), child::operate));
        this.deadLetters = new LaneDeadLetters(name, deadLetterQueue, lanes);
        this.group = RuntimeComponent.group(name, children, schedulers);
        this.polling = new RetryRequestPolling(
                name,
                deadLetterQueue,
                deadLetters,
                processors.keySet(),
                builder.pollInterval,
                builder.pollTimer,
                () -> true,
                RetryRequestPolling.WHOLE_STREAM);
    }

    /** What the bus runs as it moves work to this instance; named for its logs. */
    private record Reload(DeadLetterQueue queue) implements Runnable {
        @Override
        public void run() {
            queue.reload();
        }

        @Override
        public String toString() {
            return "reloading " + queue;
        }
    }

    /** A projection reports to the senders' waits; other processors do not. */
    private static @Nullable ProjectionListener projectionListener(
            EventProcessor processor, @Nullable CommandResults results) {
        if (results == null || processor.kind() != ProcessorKind.PROJECTION) {
            return null;
        }
        return results.projection(processor.name(), processor.aggregateTypes());
    }

    /** Starts a builder; the name also names the scheduler threads ({@code <name>-<aggregate>-<n>}). */
    public static Builder builder(String name, DomainEventBus eventBus) {
        return new Builder(name, eventBus);
    }

    /** Drains the children in reverse order, then stops the owned schedulers (see {@link RuntimeComponent#group}). */
    @Override
    public RuntimeComponent lifecycle() {
        return group;
    }

    /** Starts the processors, then polls the dead-letter queue for retries requested from outside. */
    @Override
    public void start() {
        group.start();
        polling.start();
    }

    /** Stops polling for retry requests, then closes every child's intake. */
    @Override
    public void quiesce() {
        polling.stop();
        group.quiesce();
    }

    @Override
    public Mono<Void> stopGracefully() {
        return group.stopGracefully().doOnSubscribe(subscription -> polling.stop());
    }

    @Override
    public void forceStop() {
        polling.stop();
        group.forceStop();
    }

    @Override
    public String name() {
        return name;
    }

    /** The children, one per processor, in registration order. */
    public List<RuntimeComponent> children() {
        return List.copyOf(children);
    }

    /** Every lane engine of every processor (messages: event streams, and a saga's replies), for stats and reports. */
    public List<AggregateDispatcher<?>> dispatchers() {
        return children.stream()
                .flatMap(child -> child.dispatchers().stream())
                .collect(Collectors.toUnmodifiableList());
    }

    /**
     * The parked sequences of this event side: list, retry and skip them per processor and aggregate. Retries and skips
     * run in the lanes, ordered with the streams.
     */
    public DeadLetters deadLetters() {
        return deadLetters;
    }

    /**
     * What the parking lot keeps, oldest first, when it keeps anything (the default in-memory one does): what still
     * reaches it, such as a saga reply whose retries ran out when the dead-letter queue cannot park replies ({@link
     * DeadLetterQueue#enqueueReply}'s default). Parked streams and saga replies are in {@link #deadLetters()}.
     */
    public List<ParkedMessage> parked() {
        return parkingLot instanceof RetainingParkingLot retaining ? retaining.entries() : List.of();
    }

    /**
     * Runs an entry of the parking lot (a saga reply a dead-letter queue that cannot park replies left there) through its
     * processor again, outside the lanes. Completes {@code true} when handled, {@code false} when it failed again (and
     * was parked again). Parked sequences are retried in order with {@link #deadLetters()} instead.
     *
     * @throws IllegalArgumentException if the entry is not a message of one of this dispatcher's processors
     */
    public Mono<Boolean> replay(ParkedMessage parked) {
        EventProcessor processor = processors.get(parked.dispatcher());
        Object message = parked.message();
        if (processor == null
                || !(message instanceof DomainEventStream
                        || (message instanceof SagaReply<?> && processor.kind() == ProcessorKind.SAGA))) {
            throw new IllegalArgumentException(name + " has no processor '" + parked.dispatcher() + "' for " + parked);
        }
        // handleMessage runs a stream's functions when called: deferred to the subscription, as a Mono promises
        return Mono.defer(() -> processor.handleMessage(message))
                .thenReturn(true)
                .onErrorResume(error -> {
                    parkingLot.park(new ParkedMessage(
                            parked.dispatcher(),
                            parked.aggregateId(),
                            message,
                            error,
                            parked.attempts() + 1,
                            Instant.now()));
                    return Mono.just(false);
                });
    }

    /**
     * Retries every parked sequence of this side's processors (a shared queue may hold others'), in order through the
     * lanes, then replays and removes every entry of a parking lot that keeps them; completes with how many messages
     * were handled.
     */
    public Mono<Integer> replayParked() {
        Mono<Integer> sequences = deadLetters
                .sequences()
                .flatMapMany(Flux::fromIterable)
                // a shared queue also holds other services' processors: retry only this side's
                .filter(sequence -> processors.containsKey(sequence.processor()))
                .concatMap(sequence -> deadLetters.retry(sequence.processor(), sequence.aggregateId()))
                .map(RetryOutcome::delivered)
                .reduce(0, Integer::sum);
        if (!(parkingLot instanceof RetainingParkingLot retaining)) {
            return sequences;
        }
        return sequences.flatMap(delivered -> Flux.defer(() -> Flux.fromIterable(retaining.takeAll()))
                .concatMap(this::replay)
                .filter(Boolean::booleanValue)
                .count()
                .map(replayed -> delivered + replayed.intValue()));
    }

    @Override
    public String toString() {
        return "CompositeEventDispatcher[" + name + ", " + processors.keySet() + "]";
    }

    /** The bus is required; register at least one processor. */
    public static final class Builder {
        private final String name;
        private final DomainEventBus eventBus;
        private final List<EventProcessor> processors = new ArrayList<>();
        private @Nullable AggregateSchedulerSupplier schedulers;
        private int schedulerParallelism = Schedulers.DEFAULT_POOL_SIZE;
        private LaneSettings settings = LaneSettings.DEFAULT;
        private ParkingLot parkingLot = ParkingLots.inMemory();
        private DeadLetterQueue deadLetterQueue = DeadLetterQueues.inMemory();
        private DispatcherMetrics metrics = DispatcherMetrics.NONE;
        private MessageTracing tracing = MessageTracing.NONE;
        private @Nullable CommandResults results;
        private Duration pollInterval = DEFAULT_RETRY_REQUEST_POLL;
        private Scheduler pollTimer = Schedulers.parallel();

        private Builder(String name, DomainEventBus eventBus) {
            this.name = Require.notBlank(name, "name");
            this.eventBus = Objects.requireNonNull(eventBus, "eventBus");
        }

        public Builder processor(EventProcessor processor) {
            Objects.requireNonNull(processor, "processor");
            if (processors.stream().anyMatch(p -> p.name().equals(processor.name()))) {
                throw new IllegalArgumentException(
                        "An event processor named " + processor.name() + " is already registered");
            }
            processors.add(processor);
            return this;
        }

        /** The supplier this dispatcher owns and stops; by default {@link AggregateSchedulers#perType} with its name. */
        public Builder schedulers(AggregateSchedulerSupplier schedulers) {
            this.schedulers = Objects.requireNonNull(schedulers, "schedulers");
            return this;
        }

        public Builder schedulerParallelism(int schedulerParallelism) {
            this.schedulerParallelism = Require.positive(schedulerParallelism, "schedulerParallelism");
            return this;
        }

        /**
         * Lane settings of every processor; {@link LaneSettings#DEFAULT} unless set. Keep its {@code PAUSE} overflow
         * with a bus that cannot redeliver (the in-memory one): a rejected stream would be lost to the processor.
         */
        public Builder settings(LaneSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * Where saga replies go whose retries ran out, and streams the dead-letter queue could not store; a new {@link
         * ParkingLots#inMemory()} unless set.
         */
        public Builder parkingLot(ParkingLot parkingLot) {
            this.parkingLot = Objects.requireNonNull(parkingLot, "parkingLot");
            return this;
        }

        /**
         * Where streams go whose retries ran out, in sequences that hold their aggregate's later streams for that
         * processor; a new {@link DeadLetterQueues#inMemory()} unless set ({@code PostgresDeadLetterQueue} keeps them
         * across restarts).
         */
        public Builder deadLetterQueue(DeadLetterQueue deadLetterQueue) {
            this.deadLetterQueue = Objects.requireNonNull(deadLetterQueue, "deadLetterQueue");
            return this;
        }

        /**
         * How often the event side takes the retries requested from outside (by {@code lanes parked retry|skip}) from
         * its dead-letter queue, and where that is timed; every {@link #DEFAULT_RETRY_REQUEST_POLL} on Reactor's
         * parallel scheduler unless set. An in-memory queue has no such requests.
         *
         * @throws IllegalArgumentException naming the value if not positive
         */
        public Builder retryRequestPolling(Duration interval, Scheduler timer) {
            this.pollInterval = Require.positive(interval, "retryRequestPolling");
            this.pollTimer = Objects.requireNonNull(timer, "timer");
            return this;
        }

        /**
         * Traces each processor's handling of each stream ({@link MessageTracing#handling}); a saga's commands continue
         * the trace. {@link MessageTracing#NONE} unless set.
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
         * Where projections report, so senders waiting for {@code PROJECTED} complete: each projection is declared
         * there once ({@link CommandResults#projection}), so its name must not be declared in {@code results} already.
         */
        public Builder commandResults(CommandResults results) {
            this.results = Objects.requireNonNull(results, "results");
            return this;
        }

        public CompositeEventDispatcher build() {
            if (processors.isEmpty()) {
                throw new IllegalStateException(name + " has no event processor registered");
            }
            return new CompositeEventDispatcher(this);
        }
    }
}
