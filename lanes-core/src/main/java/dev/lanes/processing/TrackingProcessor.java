package dev.lanes.processing;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.dispatch.ParkedMessage;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.PositionedStream;
import dev.lanes.internal.Require;
import dev.lanes.internal.route.BacklogRoute;
import dev.lanes.internal.route.LocalExchange;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import dev.lanes.tracing.MessageTracing;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * An event processor fed from the event store instead of the bus: it reads the store's global order ({@link
 * EventStore#readAll}) from its checkpoint, catches up, then follows new appends by polling. Use it to add a
 * projection to a running system, or to rebuild one ({@link #reset()}). It does not count for {@code PROJECTED}
 * waits (it may be far behind, catching up): those end when the projections fed by the bus handled the events.
 *
 * <p><b>Reading.</b> It reads only the streams of the processor's aggregate types ({@link EventStore#readAll(long, int,
 * java.util.Set)}), so streams of other types, even ones this application cannot decode, never hold it up. A stream
 * of its own types that the store cannot read (an event class that no longer exists) stops it at that position: the
 * read fails, is logged and retried every poll interval until the type is readable again (register an upcaster).
 *
 * <p><b>Order.</b> Streams go to the processor's lanes (one {@link AggregateDispatcher} per aggregate type, as on the
 * bus) in position order, so an aggregate's streams are handled one at a time in version order, while catching up as
 * while following; different aggregates run concurrently.
 *
 * <p><b>Dead letters.</b> Each stream goes through the same sequenced dead letters as on the bus ({@link DeadLetters}),
 * in the builder's {@link DeadLetterQueue} ({@link DeadLetterQueues#inMemory()} unless set; under {@code Lanes}, the
 * runtime's), keyed by the processor's name: a stream whose aggregate has a parked sequence for this processor is
 * parked behind its head without running; one whose last attempt (by the lane settings' {@link
 * dev.lanes.dispatch.RetryPolicy}) fails becomes the head of a new sequence. {@link #deadLetters()} lists, retries and
 * skips them; a retry runs in the aggregate's lane, ordered with the streams read. Retries requested from outside
 * ({@code lanes parked retry|skip}, {@link DeadLetterQueue#takeRetryRequests}) are taken every {@link
 * Builder#retryRequestPolling} interval by the instance that holds the claim, which also reloads the queue ({@link
 * DeadLetterQueue#reload}) each time it takes the claim, before it reads: so a restarted instance, or one taking over,
 * parks the aggregate's streams it reads again behind the head another instance parked.
 *
 * <p><b>Checkpoint.</b> A stream is settled when its lane handled it, or once the queue stored it (as a head or behind
 * one): never before. A parking the queue fails is logged and tried again every poll interval, in the aggregate's lane,
 * so its later streams wait behind it while other aggregates go on (up to {@code maxInFlight}); its position stays
 * unsettled until the queue stored it, and if the processor is stopped first (a graceful stop waits for it as for any
 * handler, up to the runtime's deadline) the stream is read again on the next start. Nothing is parked elsewhere: an
 * error that still reaches the lanes' parking lot (a fault) leaves its stream unsettled, stops this processor's reading
 * and is reported to the runtime. The checkpoint is the highest position up to which every stream read is settled
 * (contiguous, as Kafka commits offsets), saved every {@link TrackingSettings#checkpointInterval()} and after a
 * graceful stop. So once the checkpoint passed a parked stream, the queue holds it: keep the queue as long as the
 * checkpoint store ({@code PostgresDeadLetterQueue} with {@code PostgresCheckpointStore}; the in-memory queue with the
 * in-memory store), or a restart forgets what was parked. A restart reads on after the checkpoint: what was settled
 * after the last save, or was in flight at a force stop or a crash, is handled or parked again (at least once: a
 * stream parked again behind its head is a second letter of it). At most {@link TrackingSettings#maxInFlight()}
 * streams are read and not yet settled.
 *
 * <p><b>Claim.</b> Before it reads, the processor claims its name in the {@link CheckpointStore} for {@link
 * TrackingSettings#lease()} and renews the claim every third of it; another instance with the same name waits as a
 * standby, retrying every {@link TrackingSettings#pollInterval()}, and takes over once the claim is released (a
 * graceful stop) or expired (a crash). An instance that finds its claim lost (it could not renew in time) stops reading
 * for good and logs a warning; what it had read still settles, but its checkpoint is no longer saved.
 *
 * <p><b>Threads.</b> One loop reads, offers to the lanes and saves, one step at a time, on the {@code timer}
 * scheduler; handlers run on the lanes' schedulers. A failed read or save is logged and retried after the poll
 * interval. Sagas are not supported (their commands must not be sent again on a rebuild).
 */
public final class TrackingProcessor implements RuntimeComponent {
    private static final Logger log = LoggerFactory.getLogger(TrackingProcessor.class);

    /** How long the loop waits when {@link TrackingSettings#maxInFlight()} streams are unsettled. */
    static final Duration FULL_BACKOFF = Duration.ofMillis(2);

    private final EventProcessor processor;
    private final EventStore store;
    private final CheckpointStore checkpoints;
    private final TrackingSettings settings;
    private final String owner;
    private final Scheduler timer;
    private final Supplier<Mono<Void>> onReset;
    private final Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> routes;
    private final Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> operations;
    private final DeadLetterQueue queue;
    private final DeadLetterSequencer sequencer;
    private final DeadLetters deadLetters;
    private final RetryRequestPolling polling;
    /** Retries and skips offered to the lanes and not yet answered: a reset waits for them, and refuses new ones. */
    private final AtomicInteger operating = new AtomicInteger();

    private final RuntimeComponent group;
    private final TrackingLifecycle lifecycle;

    // read and written by the loop only, one step at a time
    private SettledPositions positions = new SettledPositions(0);
    private long next;
    private volatile boolean claimed;
    private long renewedAt;
    private long savedAt;

    private final AtomicReference<Sinks.@Nullable Empty<Void>> pendingReset = new AtomicReference<>();
    private volatile boolean reading;
    private volatile long saved = -1;
    private volatile @Nullable Disposable loop;
    private volatile RuntimeContext context = RuntimeContext.standalone();
    private final MessageTracing tracing;

    private TrackingProcessor(Builder builder, AggregateSchedulerSupplier schedulers) {
        this.processor = builder.processor;
        this.tracing = builder.tracing;
        this.store = builder.store;
        this.checkpoints = builder.checkpoints;
        this.settings = builder.settings;
        this.owner = builder.owner;
        this.timer = builder.timer;
        this.onReset = builder.onReset;
        this.lifecycle = new TrackingLifecycle(name());
        this.queue = builder.deadLetterQueue;
        this.sequencer = new DeadLetterSequencer(
                processor.name(),
                queue,
                DeadLetterSequencer.Storing.untilStored(name(), queue, settings.pollInterval(), timer),
                builder.laneSettings.retryPolicy(),
                Clock.systemUTC(),
                message -> TracedHandling.handle(tracing, processor, message),
                DeadLetterSequencer.noReplies(processor.name()),
                (stream, error) -> {});
        Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> byType = new HashMap<>();
        Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> operationsByType = new HashMap<>();
        AggregateSchedulerSupplier borrowed = AggregateSchedulers.borrowed(schedulers);
        List<AggregateDispatcher<Object>> dispatchers = processor.aggregateTypes().stream()
                .map(type -> dispatcher(builder, type, borrowed, byType, operationsByType))
                .toList();
        this.routes = Map.copyOf(byType);
        this.operations = Map.copyOf(operationsByType);
        this.deadLetters = new LaneDeadLetters(name(), queue, Map.of(processor.name(), this::operate));
        this.polling = new RetryRequestPolling(
                name(),
                queue,
                deadLetters,
                Set.of(processor.name()),
                builder.retryPollInterval,
                builder.retryPollTimer != null ? builder.retryPollTimer : timer,
                this::isReading);
        this.group = RuntimeComponent.group(name(), dispatchers, schedulers);
    }

    /** The lanes of one type: the streams read, merged with the retries and skips of its parked sequences. */
    private AggregateDispatcher<Object> dispatcher(
            Builder builder,
            MaterializedNamedAggregate type,
            AggregateSchedulerSupplier borrowed,
            Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> byType,
            Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> operationsByType) {
        BacklogRoute<MessageExchange<Object>> route = new BacklogRoute<>(null, held -> {});
        BacklogRoute<MessageExchange<Object>> operationRoute = new BacklogRoute<>(
                null, held -> held.reject(new IllegalStateException(name() + " stopped before running " + held)));
        byType.put(type, route);
        operationsByType.put(type, operationRoute);
        return AggregateDispatcher.<Object>builder(name(), type)
                .source(Flux.merge(operationRoute.flux(), route.flux()))
                .handler(this::dispatch)
                .schedulers(borrowed)
                .settings(builder.laneSettings)
                .parkingLot(this::refuseParking)
                .metrics(builder.metrics)
                .build();
    }

    /** In the aggregate's lane: a stream read goes through the dead letters; a retry or skip runs on its sequence. */
    private Mono<Void> dispatch(MessageExchange<Object> exchange) {
        if (exchange instanceof SequenceOperation operation) {
            return sequencer.run(operation);
        }
        return sequencer.handle((AttemptedStream) exchange);
    }

    /**
     * The lanes' parking lot, which the sequencer leaves nothing to (a parking is retried until stored): anything that
     * still gets here is a fault. Throwing makes the lane reject the stream (its position stays unsettled, read again
     * after a restart) and report the fault to the runtime; this processor reads no more.
     */
    private void refuseParking(ParkedMessage parked) {
        stopReading();
        throw new IllegalStateException(name() + " parks streams only in its dead-letter queue " + queue + ", but "
                + parked.aggregateId() + " reached its lanes' parking lot after " + parked.attempts()
                + " attempt(s): " + parked.error() + "; it stays unsettled and " + name() + " stops reading");
    }

    /**
     * Runs a retry or skip of one parked sequence in its aggregate's lane. Errors with {@link IllegalArgumentException}
     * if this processor reads no streams of the aggregate's type, and with {@link IllegalStateException} while a reset
     * is pending (the reset discards the sequences).
     */
    private Mono<RetryOutcome> operate(AggregateId aggregateId, SequenceOperation.Kind kind) {
        return Mono.defer(() -> {
            BacklogRoute<MessageExchange<Object>> route = operations.get(aggregateId.materialize());
            if (route == null) {
                return Mono.error(new IllegalArgumentException(name() + " reads no streams of "
                        + aggregateId.materialize() + " (it reads " + processor.aggregateTypes() + ")"));
            }
            operating.incrementAndGet(); // before the check: a reset that saw no operation sees its pending flag here
            if (pendingReset.get() != null) {
                operating.decrementAndGet();
                return Mono.error(new IllegalStateException(name() + " is resetting (its dead letters are discarded):"
                        + " the " + kind + " of " + aggregateId + " is refused"));
            }
            SequenceOperation operation = new SequenceOperation(processor.name(), aggregateId, kind);
            Mono<RetryOutcome> result = operation.result().doFinally(signal -> operating.decrementAndGet());
            result.subscribe(outcome -> {}, error -> {}); // counts the operation until it is answered, not cancelled
            if (!route.offer(operation)) {
                operation.reject(new IllegalStateException(name() + " is stopped"));
            }
            return operation.result();
        });
    }

    /**
     * A tracking processor for {@code processor} (a projection or handler; not a saga), reading {@code store} and
     * keeping its checkpoint and claim in {@code checkpoints} under the processor's name.
     */
    public static Builder builder(EventProcessor processor, EventStore store, CheckpointStore checkpoints) {
        return new Builder(processor, store, checkpoints);
    }

    @Override
    public String name() {
        return "Tracking-" + processor.name();
    }

    /** The last checkpoint this instance saved, or -1 before its first save. */
    public long savedCheckpoint() {
        return saved;
    }

    /**
     * This processor's parked sequences: list them, retry them, skip their head (see {@link DeadLetters}). A retry or
     * skip runs in the aggregate's lane of this instance, ordered with the streams read; one asked for while a {@link
     * #reset()} is pending errors with {@link IllegalStateException}. Under {@code Lanes}, {@code Lanes.deadLetters()}
     * reaches it with the other processors.
     */
    public DeadLetters deadLetters() {
        return deadLetters;
    }

    /** Where this processor parks the streams it could not handle (the builder's {@link Builder#deadLetterQueue}). */
    public DeadLetterQueue deadLetterQueue() {
        return queue;
    }

    /** Whether this instance holds the claim and reads (false for a standby, and after a stop or a lost claim). */
    public boolean isReading() {
        return reading && claimed;
    }

    @Override
    public Mono<Void> prepare(RuntimeContext context) {
        return Mono.defer(() -> {
            lifecycle.prepared();
            this.context = context;
            context.whenStopping(this::stopReading);
            return group.prepare(context);
        });
    }

    @Override
    public void start() {
        lifecycle.started();
        if (checkpoints.durable() && !queue.durable()) {
            log.warn(
                    "{} keeps its checkpoint in {} but parks in {}, which is lost with the process: after a restart"
                            + " the checkpoint is past the streams it parked, and they are not delivered again; give it"
                            + " a durable dead-letter queue (PostgresDeadLetterQueue)",
                    name(),
                    checkpoints,
                    queue);
        }
        group.start();
        reading = true;
        polling.start();
        loop = Mono.defer(this::step)
                .onErrorResume(this::stepFailed)
                .flatMap(delay -> Mono.delay(delay, timer))
                .repeat(() -> reading)
                .subscribe(null, this::loopFailed);
    }

    /**
     * Rebuilds from position 0: once every stream read so far is settled and no retry or skip runs, runs the {@code
     * onReset} action of the builder (clear the projection there), then discards this processor's sequences in its
     * dead-letter queue ({@link DeadLetterQueue#discard}: they belong to the read model being cleared), saves checkpoint
     * 0 and reads again from the start. So the rebuild parks what still fails again, holding that aggregate's later
     * streams behind it as the first run did, and no letter is left twice. A failed step is logged and the reset tried
     * again from {@code onReset} after the poll interval. Retries and skips asked for while a reset is pending error
     * with {@link IllegalStateException}. Completes when reading starts over; errors with {@link IllegalStateException}
     * when the processor is not running, or stops first. A reset asked for while one is pending joins it.
     */
    public Mono<Void> reset() {
        return Mono.defer(() -> {
            lifecycle.requireRunning("reset");
            Sinks.Empty<Void> done = Sinks.empty();
            Sinks.Empty<Void> pending = pendingReset.compareAndExchange(null, done);
            return (pending != null ? pending : done).asMono();
        });
    }

    // ---------------------------------------------------------------------------------------------------------------
    // the loop: one step at a time; each returns how long to wait before the next

    private Mono<Duration> step() {
        if (!claimed) {
            return claimAndLoad();
        }
        return renewIfDue().then(Mono.defer(() -> {
            if (!claimed) {
                return Mono.just(settings.pollInterval());
            }
            Sinks.Empty<Void> reset = pendingReset.get();
            Mono<Duration> work = reset != null ? resetWhenSettled(reset) : readPage();
            return work.flatMap(delay -> saveIfDue().thenReturn(delay));
        }));
    }

    private Mono<Duration> claimAndLoad() {
        return checkpoints.claim(processor.name(), owner, settings.lease()).flatMap(won -> {
            if (!won) {
                return Mono.just(settings.pollInterval());
            }
            return reloadDeadLetters().then(checkpoints.load(processor.name())).map(checkpoint -> {
                restartFrom(checkpoint);
                claimed = true;
                renewedAt = now();
                log.info("{} claimed by {} from checkpoint {}", name(), owner, checkpoint);
                return Duration.ZERO;
            });
        });
    }

    /**
     * Before this instance reads, its queue reads the parked sequences again (blocking, so off the loop's thread): the
     * instance that held the claim before may have parked some since this queue loaded them.
     */
    private Mono<Void> reloadDeadLetters() {
        return Mono.fromRunnable(queue::reload)
                .subscribeOn(Schedulers.boundedElastic())
                .then();
    }

    private void restartFrom(long checkpoint) {
        positions = new SettledPositions(checkpoint);
        next = checkpoint + 1;
        saved = checkpoint;
    }

    private Mono<Void> renewIfDue() {
        long now = now();
        if (now - renewedAt < settings.lease().toMillis() / 3) {
            return Mono.empty();
        }
        return checkpoints
                .claim(processor.name(), owner, settings.lease())
                .doOnNext(held -> {
                    if (held) {
                        renewedAt = now;
                    } else {
                        lost();
                    }
                })
                .then();
    }

    private Mono<Duration> readPage() {
        int room = settings.maxInFlight() - positions.inFlight();
        if (room < 1) {
            return Mono.just(FULL_BACKOFF);
        }
        int limit = Math.min(settings.pageSize(), room);
        return store.readAll(next, limit, routes.keySet()).collectList().map(page -> {
            page.forEach(this::offer);
            return page.size() == limit ? Duration.ZERO : settings.pollInterval();
        });
    }

    private void offer(PositionedStream positioned) {
        long position = positioned.position();
        BacklogRoute<MessageExchange<Object>> route =
                routes.get(positioned.aggregateId().materialize());
        SettledPositions tracker = positions;
        tracker.offered(position, route != null);
        next = position + 1;
        if (route != null && !route.offer(exchange(positioned, tracker))) {
            stopReading(); // the lanes stopped taking: the position stays unsettled, read again on the next start
        }
    }

    private MessageExchange<Object> exchange(PositionedStream positioned, SettledPositions tracker) {
        DomainEventStream stream = positioned.stream();
        long position = positioned.position();
        return new AttemptedStream(new LocalExchange<>(
                stream,
                stream.aggregateId(),
                () -> tracker.settled(position),
                reason -> log.debug("{} not handled: position {} ({})", name(), position, reason.toString())));
    }

    private Mono<Duration> resetWhenSettled(Sinks.Empty<Void> reset) {
        if (positions.inFlight() > 0 || operating.get() > 0) {
            return Mono.just(FULL_BACKOFF);
        }
        return Mono.defer(onReset)
                .then(Mono.defer(() -> queue.discard(processor.name())))
                .doOnNext(discarded -> log.info(
                        "{} reset: discarded {} dead letter(s) of {} in {}",
                        name(),
                        discarded,
                        processor.name(),
                        queue))
                .then(checkpoints.save(processor.name(), owner, 0))
                .map(stored -> {
                    if (!stored) {
                        lost();
                        return settings.pollInterval();
                    }
                    restartFrom(0);
                    pendingReset.set(null);
                    reset.tryEmitEmpty();
                    log.info("{} reset: reading again from position 0", name());
                    return Duration.ZERO;
                });
    }

    private Mono<Void> saveIfDue() {
        long now = now();
        long checkpoint = positions.checkpoint();
        if (checkpoint == saved || now - savedAt < settings.checkpointInterval().toMillis()) {
            return Mono.empty();
        }
        return save(checkpoint).doOnSuccess(ignored -> savedAt = now);
    }

    private Mono<Void> save(long checkpoint) {
        return checkpoints
                .save(processor.name(), owner, checkpoint)
                .doOnNext(stored -> {
                    if (stored) {
                        saved = checkpoint;
                    } else {
                        lost();
                    }
                })
                .then();
    }

    private void lost() {
        claimed = false;
        stopReading();
        log.warn(
                "{} lost its claim (owner {}) at checkpoint {}: another instance took over; this one reads no more",
                name(),
                owner,
                saved);
    }

    private Mono<Duration> stepFailed(Throwable error) {
        log.warn(
                "{} (owner {}) failed reading or saving from position {}: {}; trying again in {}",
                name(),
                owner,
                next,
                error.toString(),
                settings.pollInterval());
        return Mono.just(settings.pollInterval());
    }

    /** A defect (the loop itself threw): reported to the runtime, which stops. Store failures never get here. */
    private void loopFailed(Throwable error) {
        stopReading();
        context.reportFailure(new IllegalStateException(
                name() + " (owner " + owner + ") stopped reading at position " + next + ": " + error, error));
    }

    private long now() {
        return timer.now(TimeUnit.MILLISECONDS);
    }

    private void stopReading() {
        reading = false;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // stopping

    @Override
    public void quiesce() {
        polling.stop();
        stopReading();
        group.quiesce();
    }

    /** Stops reading, drains the lanes, then saves the checkpoint they reached and releases the claim. */
    @Override
    public Mono<Void> stopGracefully() {
        return lifecycle.stop(() -> {
            stopLoop();
            return group.stopGracefully().then(Mono.defer(this::finalSave));
        });
    }

    private void stopLoop() {
        polling.stop();
        stopReading();
        Disposable current = loop;
        if (current != null) {
            current.dispose();
        }
        Sinks.Empty<Void> reset = pendingReset.getAndSet(null);
        if (reset != null) {
            reset.tryEmitError(new IllegalStateException(name() + " stopped before its reset began"));
        }
    }

    private Mono<Void> finalSave() {
        if (!claimed) {
            return Mono.empty();
        }
        return save(positions.checkpoint()).then(checkpoints.release(processor.name(), owner));
    }

    /** Stops reading and forces the lanes; the checkpoint stays at its last save (what follows is read again). */
    @Override
    public void forceStop() {
        stopLoop();
        group.forceStop();
    }

    @Override
    public String toString() {
        return "TrackingProcessor[" + processor.name() + ", owner " + owner + ", saved " + saved + "]";
    }

    /** Configures a {@link TrackingProcessor}. */
    public static final class Builder {
        private final EventProcessor processor;
        private final EventStore store;
        private final CheckpointStore checkpoints;
        private TrackingSettings settings = TrackingSettings.DEFAULT;
        private LaneSettings laneSettings = LaneSettings.DEFAULT;
        private @Nullable AggregateSchedulerSupplier schedulers;
        private DeadLetterQueue deadLetterQueue = DeadLetterQueues.inMemory();
        private Duration retryPollInterval = CompositeEventDispatcher.DEFAULT_RETRY_REQUEST_POLL;
        private @Nullable Scheduler retryPollTimer;
        private DispatcherMetrics metrics = DispatcherMetrics.NONE;
        private MessageTracing tracing = MessageTracing.NONE;
        private String owner = UUID.randomUUID().toString();
        private Scheduler timer = Schedulers.parallel();
        private Supplier<Mono<Void>> onReset = Mono::empty;

        private Builder(EventProcessor processor, EventStore store, CheckpointStore checkpoints) {
            this.processor = Objects.requireNonNull(processor, "processor");
            if (processor.kind() == ProcessorKind.SAGA) {
                throw new IllegalArgumentException("A saga cannot track the store (its commands would be sent again on"
                        + " a rebuild): " + processor);
            }
            this.store = Objects.requireNonNull(store, "store");
            this.checkpoints = Objects.requireNonNull(checkpoints, "checkpoints");
        }

        public Builder settings(TrackingSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        public Builder laneSettings(LaneSettings laneSettings) {
            this.laneSettings = Objects.requireNonNull(laneSettings, "laneSettings");
            return this;
        }

        /** The lanes' schedulers, owned: stopped after the lanes drained. Default {@code perType("Tracking-<name>")}. */
        public Builder schedulers(AggregateSchedulerSupplier schedulers) {
            this.schedulers = Objects.requireNonNull(schedulers, "schedulers");
            return this;
        }

        /**
         * Where streams whose retries ran out are parked, in sequences that hold their aggregate's later streams (see
         * {@link TrackingProcessor}); a new {@link DeadLetterQueues#inMemory()} unless set. Use a queue that lasts as
         * long as the checkpoint store: a parked stream is settled once the queue stored it, so a checkpoint that
         * outlives the queue (the in-memory queue with {@code PostgresCheckpointStore}) forgets it at a restart.
         */
        public Builder deadLetterQueue(DeadLetterQueue deadLetterQueue) {
            this.deadLetterQueue = Objects.requireNonNull(deadLetterQueue, "deadLetterQueue");
            return this;
        }

        /**
         * How often the instance that holds the claim takes the retries requested from outside (by {@code lanes parked
         * retry|skip}) from its dead-letter queue, and where that is timed; every {@link
         * CompositeEventDispatcher#DEFAULT_RETRY_REQUEST_POLL} on the {@link #timer} unless set. An in-memory queue
         * has no such requests.
         *
         * @throws IllegalArgumentException naming the value if not positive
         */
        public Builder retryRequestPolling(Duration interval, Scheduler timer) {
            this.retryPollInterval = Require.positive(interval, "retryRequestPolling");
            this.retryPollTimer = Objects.requireNonNull(timer, "timer");
            return this;
        }

        /**
         * Traces the processor's handling of each stream it reads ({@link MessageTracing#handling}): the stored headers
         * carry the trace of the command that appended it, so the handling continues that trace. {@link
         * MessageTracing#NONE} unless set (a tracking processor registered with {@code Lanes.Builder#trackingProcessor}
         * is traced only if built with this).
         */
        public Builder tracing(MessageTracing tracing) {
            this.tracing = Objects.requireNonNull(tracing, "tracing");
            return this;
        }

        public Builder metrics(DispatcherMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /** This instance's name in claims; unique per running instance. Default: a random UUID. */
        public Builder owner(String owner) {
            this.owner = Require.notBlank(owner, "owner");
            return this;
        }

        /** Where the reading loop runs and waits. Default: Reactor's parallel scheduler. */
        public Builder timer(Scheduler timer) {
            this.timer = Objects.requireNonNull(timer, "timer");
            return this;
        }

        /** What {@link TrackingProcessor#reset()} runs before reading from 0: clear the projection there. */
        public Builder onReset(Supplier<Mono<Void>> onReset) {
            this.onReset = Objects.requireNonNull(onReset, "onReset");
            return this;
        }

        public TrackingProcessor build() {
            AggregateSchedulerSupplier owned = schedulers;
            return new TrackingProcessor(
                    this, owned != null ? owned : AggregateSchedulers.perType("Tracking-" + processor.name()));
        }
    }
}
