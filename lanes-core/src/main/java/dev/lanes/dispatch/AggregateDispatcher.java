package dev.lanes.dispatch;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.DispatcherMetrics.LaneRecorder;
import dev.lanes.dispatch.ExchangeRejectedException.Reason;
import dev.lanes.internal.Require;
import dev.lanes.runtime.ActivityLease;
import dev.lanes.runtime.RuntimeComponent;
import dev.lanes.runtime.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Dispatches the exchanges of one named aggregate to a handler: one exchange at a time per lane, in arrival order,
 * lanes concurrently, on the aggregate type's scheduler.
 *
 * <p><b>Lanes.</b> Under {@link LaneStrategy#HASHED} the lane is {@link MessageParallelism#toGroupKey}, as in the seed;
 * under {@link LaneStrategy#KEYED} it is the aggregate id. Each lane has its own queue: a lane whose handler never
 * completes holds up that lane only. The next exchange of a lane starts after the previous handler's {@code Mono}
 * terminated, on whatever thread; it runs on a worker of {@code schedulers.getOrInitialize(namedAggregate)}, not on a
 * fixed thread.
 *
 * <p><b>Bounds.</b> A lane holds at most {@code maxQueuedPerLane} exchanges: more for it are rejected back to their
 * source ({@link Reason#LANE_FULL}), and other lanes go on. The dispatcher holds at most {@code maxQueued}: at that
 * bound it stops requesting from its source.
 *
 * <p><b>Failures.</b> A handler error is retried inside the lane by the {@link RetryPolicy}, then the exchange is
 * parked with its error and acknowledged, and the lane moves on. Only infrastructure faults (the scheduler refuses
 * work, the source fails, parking fails) are reported to the {@link RuntimeContext} as fatal.
 *
 * <p><b>Lifecycle</b> (one-way): {@code NEW -prepare-> PREPARED -start-> RUNNING -quiesce-> STOPPING -drained->
 * STOPPED}; {@link #forceStop()} goes to {@code STOPPED} from anywhere. After stop, exchanges still delivered by the
 * source are rejected to it with {@link Reason#STOPPING}.
 *
 * @param <M> the message type
 */
public final class AggregateDispatcher<M> implements RuntimeComponent {
    private static final Logger log = LoggerFactory.getLogger(AggregateDispatcher.class);
    private static final int SYNCHRONOUS_BATCH = 64;
    private static final int HOT_KEY_CAPACITY = 32;
    private static final long HOT_KEY_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** The lifecycle states, in order. */
    public enum State {
        NEW,
        PREPARED,
        RUNNING,
        STOPPING,
        STOPPED
    }

    private final String name;
    private final MaterializedNamedAggregate namedAggregate;
    private final Flux<? extends MessageExchange<M>> source;
    private final ExchangeHandler<M> handler;
    private final AggregateSchedulerSupplier schedulers;
    private final LaneSettings settings;
    private final ParkingLot parkingLot;
    private final DispatcherMetrics metrics;
    private final LongSupplier nanoTime;
    private final Scheduler cleanup;

    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final LaneTable<M> lanes;
    private final Intake<M> intake;
    private final HotKeyTracker hotKeys;
    private final AtomicInteger admitted = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicReference<@Nullable Throwable> fault = new AtomicReference<>();
    private final LongAdder handled = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder parked = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder cancelled = new LongAdder();
    private final Sinks.Empty<Void> terminated = Sinks.empty();
    private final Mono<Void> gracefulStop;
    private volatile RuntimeContext context = RuntimeContext.standalone();
    private volatile LaneRecorder recorder = LaneRecorder.NONE;
    private volatile @Nullable Scheduler scheduler;
    private final int hotKeySampling;
    private int admissions;

    private AggregateDispatcher(Builder<M> builder) {
        this.name = Require.notBlank(builder.name, "name");
        this.namedAggregate = builder.namedAggregate;
        this.source = Objects.requireNonNull(builder.source, "source");
        this.handler = Objects.requireNonNull(builder.handler, "handler");
        this.schedulers = Objects.requireNonNull(builder.schedulers, "schedulers");
        this.settings = builder.settings;
        this.parkingLot = builder.parkingLot;
        this.metrics = builder.metrics;
        this.nanoTime = builder.nanoTime;
        this.cleanup = builder.cleanup;
        this.lanes = new LaneTable<>(
                settings.maxQueuedPerLane(), settings.overflow() == LaneSettings.Overflow.REJECT, this::laneRelieved);
        this.intake = new Intake<>(this::admit, this::sourceFailed, settings.maxQueued(), lanes::overBound);
        this.hotKeySampling = builder.hotKeySampling;
        this.hotKeys = new HotKeyTracker(HOT_KEY_CAPACITY, HOT_KEY_WINDOW_NANOS, nanoTime);
        this.gracefulStop = Mono.defer(() -> {
            quiesce();
            return terminated.asMono();
        });
    }

    /** Starts a builder for the dispatcher named {@code name} (e.g. {@code "CommandDispatcher"}) of one aggregate type. */
    public static <M> Builder<M> builder(String name, NamedAggregate namedAggregate) {
        return new Builder<>(name, namedAggregate);
    }

    @Override
    public String name() {
        return name;
    }

    public MaterializedNamedAggregate namedAggregate() {
        return namedAggregate;
    }

    public LaneSettings settings() {
        return settings;
    }

    public State state() {
        return Objects.requireNonNull(state.get());
    }

    /** A live view: queued, in flight, lanes, skew, outcome totals, hottest ids. Cheap; any thread. */
    public DispatcherStats stats() {
        long[] depths = lanes.depths();
        int laneCount = lanes.size();
        double mean = laneCount == 0 ? 0 : (double) depths[1] / laneCount;
        return new DispatcherStats(
                admitted.get(),
                inFlight.get(),
                laneCount,
                (int) depths[0],
                mean == 0 ? 0 : depths[0] / mean,
                handled.sum(),
                retried.sum(),
                parked.sum(),
                rejected.sum(),
                cancelled.sum(),
                hotKeys.hottest(hotKeySampling));
    }

    // ---------------------------------------------------------------- lifecycle

    /** Resolves the scheduler, binds metrics and subscribes the source without demand; handles nothing. */
    @Override
    public Mono<Void> prepare(RuntimeContext context) {
        Objects.requireNonNull(context, "context");
        return Mono.fromRunnable(() -> {
            transition(State.NEW, State.PREPARED, "prepare");
            this.context = context;
            this.scheduler = schedulers.getOrInitialize(namedAggregate);
            this.recorder = new SafeRecorder(metrics.bind(name, namedAggregate, this::stats), this);
            source.subscribe(intake);
            Throwable failed = fault.get();
            if (failed != null) {
                throw Exceptions.propagate(failed);
            }
        });
    }

    /** Opens demand: exchanges flow from the source into lanes. */
    @Override
    public void start() {
        transition(State.PREPARED, State.RUNNING, "start");
        intake.start();
    }

    /** Stops taking exchanges from the source; admitted ones still run. Prompt and idempotent. */
    @Override
    public void quiesce() {
        for (; ; ) {
            State current = state.get();
            if (current == State.NEW) {
                if (state.compareAndSet(current, State.STOPPED)) {
                    terminate();
                    return;
                }
            } else if (current == State.PREPARED || current == State.RUNNING) {
                if (state.compareAndSet(current, State.STOPPING)) {
                    intake.cancel(cleanup);
                    if (admitted.get() == 0) {
                        terminateIfDrained();
                    }
                    return;
                }
            } else {
                return;
            }
        }
    }

    /**
     * Quiesces on subscription, then completes when every admitted exchange has been settled, in lane order and without
     * cancelling a handler. Errors with the first infrastructure fault, if one occurred. The same instance every call.
     */
    @Override
    public Mono<Void> stopGracefully() {
        return gracefulStop;
    }

    /**
     * Stops at once: in-flight handlers are cancelled and queued exchanges rejected to their source with {@link
     * Reason#FORCED}. Source and handler cancellation run on the cleanup scheduler, so this returns promptly even if a
     * cancel hook blocks. Idempotent; safe in any state.
     */
    @Override
    public void forceStop() {
        State previous = state.getAndSet(State.STOPPED);
        if (previous == State.STOPPED) {
            return;
        }
        intake.cancel(cleanup);
        List<Envelope<M>> taken = lanes.close();
        for (Envelope<M> envelope : taken) {
            HandlerSubscriber<M> running = envelope.running;
            boolean wasRunning = running != null;
            reject(
                    envelope,
                    wasRunning ? Outcome.CANCELLED : Outcome.REJECTED,
                    new ExchangeRejectedException(
                            Reason.FORCED,
                            this + " was force-stopped " + (wasRunning ? "while handling " : "before handling ")
                                    + envelope.exchange.aggregateId()));
            if (running != null) {
                cleanup.schedule(running::cancel);
            }
        }
        log.info("{} force-stopped: {} exchange(s) rejected to their source", this, taken.size());
        terminate();
    }

    private void transition(State from, State to, String action) {
        if (!state.compareAndSet(from, to)) {
            throw new IllegalStateException(this + " cannot " + action + " in state " + state());
        }
    }

    private void terminateIfDrained() {
        if (state.get() == State.STOPPING
                && admitted.get() == 0
                && state.compareAndSet(State.STOPPING, State.STOPPED)) {
            terminate();
        }
    }

    private void terminate() {
        recorder.close();
        Throwable failed = fault.get();
        if (failed == null) {
            terminated.tryEmitEmpty();
        } else {
            terminated.tryEmitError(failed);
        }
    }

    // ---------------------------------------------------------------- intake

    /** Called serially by the source for each delivered exchange. */
    private void admit(MessageExchange<M> exchange) {
        admitted.incrementAndGet();
        if (state.get() != State.RUNNING) {
            refuse(exchange, Reason.STOPPING, this + " is " + state() + "; not taking " + exchange.aggregateId());
            return;
        }
        ActivityLease lease;
        try {
            lease = context.tryAcquire();
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            refuse(exchange, Reason.FAULT, this + " could not acquire an activity lease: " + error);
            fail(error);
            return;
        }
        if (lease == null) {
            refuse(exchange, Reason.ADMISSION_CLOSED, this + " admission is closed; " + exchange.aggregateId());
            return;
        }
        if (++admissions % hotKeySampling == 0) { // the intake is serial: a plain counter suffices
            hotKeys.record(exchange.aggregateId().id());
        }
        Envelope<M> envelope = new Envelope<>(exchange, lease, laneKey(exchange), nanoTime.getAsLong());
        switch (lanes.offer(envelope)) {
            case STARTED -> schedule(envelope, 0);
            case QUEUED, QUEUED_OVER_BOUND -> {}
            case FULL -> {
                lease.close();
                refuse(
                        exchange,
                        Reason.LANE_FULL,
                        this + " lane of " + exchange.aggregateId() + " is full (maxQueuedPerLane="
                                + settings.maxQueuedPerLane() + ", queued in dispatcher=" + admitted.get() + ")");
            }
            case CLOSED -> {
                lease.close();
                refuse(exchange, Reason.FORCED, this + " was force-stopped; not taking " + exchange.aggregateId());
            }
        }
    }

    private Object laneKey(MessageExchange<M> exchange) {
        return settings.strategy() == LaneStrategy.KEYED
                ? exchange.aggregateId().id()
                : MessageParallelism.toGroupKey(exchange.aggregateId(), settings.parallelism());
    }

    /** Hands an exchange that never entered a lane back to its source and frees its slot. */
    private void refuse(MessageExchange<M> exchange, Reason reason, String message) {
        rejected.increment();
        recorder.outcome(Outcome.REJECTED, 0);
        rejectQuietly(exchange, new ExchangeRejectedException(reason, message));
        freeSlot();
    }

    /** The last lane over its bound came back under it: the intake may take again. */
    private void laneRelieved() {
        intake.release(0, true);
    }

    private void sourceFailed(Throwable error) {
        fail(new IllegalStateException(this + " source failed", error));
        quiesce();
    }

    // ---------------------------------------------------------------- lanes

    private void schedule(Envelope<M> envelope, long delayNanos) {
        Scheduler target = Objects.requireNonNull(scheduler, "scheduler");
        try {
            if (delayNanos <= 0) {
                target.schedule(() -> run(envelope));
            } else {
                target.schedule(() -> run(envelope), delayNanos, TimeUnit.NANOSECONDS);
            }
        } catch (RejectedExecutionException refused) {
            if (state.get() != State.STOPPED) {
                schedulerRefused(envelope, refused);
            }
        }
    }

    /**
     * Runs the lane from {@code first}: each envelope whose handler ends synchronously hands the next one back to this
     * loop (up to a batch, then the lane yields its worker); an asynchronous end schedules the next one itself.
     */
    private void run(Envelope<M> first) {
        Envelope<M> envelope = first;
        for (int budget = SYNCHRONOUS_BATCH; ; ) {
            if (envelope.isSettled()) {
                return; // force-stopped meanwhile
            }
            HandlerSubscriber<M> subscriber = invoke(envelope);
            subscriber.invoking = false;
            Envelope<M> next = subscriber.synchronousNext;
            if (!subscriber.advancedSynchronously || next == null) {
                return;
            }
            if (--budget == 0) {
                schedule(next, 0);
                return;
            }
            envelope = next;
        }
    }

    private HandlerSubscriber<M> invoke(Envelope<M> envelope) {
        long now = nanoTime.getAsLong();
        if (envelope.attempts++ == 0) {
            recorder.queueWait(now - envelope.admittedAt);
        }
        envelope.startedAt = now;
        inFlight.incrementAndGet();
        HandlerSubscriber<M> subscriber = new HandlerSubscriber<>(envelope, this::handlerEnded);
        envelope.running = subscriber;
        Mono<Void> handling;
        try {
            handling = Objects.requireNonNull(handler.handle(envelope.exchange), "handler returned null");
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            handling = Mono.error(error);
        }
        handling.subscribe(subscriber);
        return subscriber;
    }

    private void handlerEnded(HandlerSubscriber<M> subscriber, @Nullable Throwable error) {
        Envelope<M> envelope = subscriber.envelope;
        envelope.running = null;
        inFlight.decrementAndGet();
        long handlerNanos = nanoTime.getAsLong() - envelope.startedAt;
        if (envelope.isSettled()) {
            return; // force-stopped meanwhile
        }
        if (error == null) {
            handled.increment();
            recorder.outcome(Outcome.HANDLED, handlerNanos);
            acknowledge(envelope);
        } else if (settings.retryPolicy().shouldRetry(envelope.attempts, error)) {
            retried.increment();
            recorder.outcome(Outcome.RETRIED, handlerNanos);
            Duration backoff = settings.retryPolicy().backoff(envelope.attempts);
            log.debug(
                    "{} retrying {} in {} after: {}", this, envelope.exchange.aggregateId(), backoff, error.toString());
            schedule(envelope, backoff.toNanos());
            return;
        } else {
            park(envelope, error, handlerNanos);
        }
        advance(subscriber);
    }

    /** The head of the lane is done: take the next one, and run it here (synchronous end) or schedule it. */
    private void advance(HandlerSubscriber<M> subscriber) {
        Envelope<M> next = lanes.complete(Objects.requireNonNull(subscriber.envelope.lane, "lane"));
        if (subscriber.isSynchronousCompletion()) {
            subscriber.advancedSynchronously = true;
            subscriber.synchronousNext = next;
        } else if (next != null) {
            schedule(next, 0);
        }
    }

    private void park(Envelope<M> envelope, Throwable error, long handlerNanos) {
        MessageExchange<M> exchange = envelope.exchange;
        try {
            parkingLot.park(new ParkedMessage(
                    name, exchange.aggregateId(), exchange.message(), error, envelope.attempts, Instant.now()));
        } catch (Throwable parkingFailed) {
            Exceptions.throwIfJvmFatal(parkingFailed);
            parkingFailed.addSuppressed(error);
            reject(
                    envelope,
                    Outcome.REJECTED,
                    new ExchangeRejectedException(
                            Reason.FAULT, this + " could not park " + exchange.aggregateId(), parkingFailed));
            fail(parkingFailed);
            return;
        }
        parked.increment();
        recorder.outcome(Outcome.PARKED, handlerNanos);
        acknowledge(envelope);
    }

    /** The scheduler refused work: every envelope of this lane goes back to its source, and the owner is told. */
    private void schedulerRefused(Envelope<M> envelope, RejectedExecutionException refused) {
        fail(new IllegalStateException(this + " scheduler refused work for " + namedAggregate, refused));
        for (Envelope<M> current = envelope; current != null; ) {
            reject(
                    current,
                    Outcome.REJECTED,
                    new ExchangeRejectedException(Reason.FAULT, this + " scheduler refused work", refused));
            current = lanes.complete(Objects.requireNonNull(current.lane, "lane"));
        }
    }

    // ---------------------------------------------------------------- settling

    private void acknowledge(Envelope<M> envelope) {
        if (!envelope.trySettle()) {
            return;
        }
        try {
            envelope.exchange.acknowledge();
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            log.error("{} could not acknowledge {} to its source", this, envelope.exchange.aggregateId(), error);
            fail(error);
        }
        release(envelope);
    }

    private void reject(Envelope<M> envelope, Outcome outcome, ExchangeRejectedException reason) {
        if (!envelope.trySettle()) {
            return;
        }
        (outcome == Outcome.CANCELLED ? cancelled : rejected).increment();
        recorder.outcome(outcome, 0);
        rejectQuietly(envelope.exchange, reason);
        release(envelope);
    }

    private void rejectQuietly(MessageExchange<M> exchange, ExchangeRejectedException reason) {
        try {
            exchange.reject(reason);
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            log.error("{} could not reject {} to its source ({})", this, exchange.aggregateId(), reason, error);
        }
    }

    private void release(Envelope<M> envelope) {
        envelope.lease.close();
        freeSlot();
    }

    private void freeSlot() {
        int remaining = admitted.decrementAndGet();
        intake.release(1, remaining == 0);
        if (remaining == 0) {
            terminateIfDrained();
        }
    }

    private void fail(Throwable error) {
        if (fault.compareAndSet(null, error)) {
            log.error("{} infrastructure fault", this, error);
        }
        context.reportFailure(error);
    }

    @Override
    public String toString() {
        return "AggregateDispatcher[" + name + "/" + namedAggregate + "]";
    }

    /** Assembles an {@link AggregateDispatcher}; source, handler and schedulers are required. */
    public static final class Builder<M> {
        private final String name;
        private final MaterializedNamedAggregate namedAggregate;
        private @Nullable Flux<? extends MessageExchange<M>> source;
        private @Nullable ExchangeHandler<M> handler;
        private @Nullable AggregateSchedulerSupplier schedulers;
        private LaneSettings settings = LaneSettings.DEFAULT;
        private ParkingLot parkingLot = ParkingLot.inMemory();
        private DispatcherMetrics metrics = DispatcherMetrics.NONE;
        private LongSupplier nanoTime = System::nanoTime;
        private Scheduler cleanup = Schedulers.boundedElastic();
        private int hotKeySampling = 8;

        private Builder(String name, NamedAggregate namedAggregate) {
            this.name = Require.notBlank(name, "name");
            this.namedAggregate =
                    Objects.requireNonNull(namedAggregate, "namedAggregate").materialize();
        }

        /** Where exchanges come from; subscribed once, at prepare. */
        public Builder<M> source(Flux<? extends MessageExchange<M>> source) {
            this.source = Objects.requireNonNull(source, "source");
            return this;
        }

        public Builder<M> handler(ExchangeHandler<M> handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /** Who owns the scheduler handlers run on; the dispatcher never stops it. */
        public Builder<M> schedulers(AggregateSchedulerSupplier schedulers) {
            this.schedulers = Objects.requireNonNull(schedulers, "schedulers");
            return this;
        }

        public Builder<M> settings(LaneSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** Where exchanges go when their retries are exhausted; an in-memory lot by default. */
        public Builder<M> parkingLot(ParkingLot parkingLot) {
            this.parkingLot = Objects.requireNonNull(parkingLot, "parkingLot");
            return this;
        }

        public Builder<M> metrics(DispatcherMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /** The clock for queue-wait and handler times; {@code System::nanoTime} by default. */
        public Builder<M> nanoTime(LongSupplier nanoTime) {
            this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
            return this;
        }

        /** Where cancellations run that may block (source and handler cancel hooks); bounded elastic by default. */
        public Builder<M> cleanup(Scheduler cleanup) {
            this.cleanup = Objects.requireNonNull(cleanup, "cleanup");
            return this;
        }

        /**
         * One admission in {@code every} is recorded for the hottest-ids sketch (counts are scaled back); 1 records
         * all. Default 8: the sketch costs a lock and a scan per record.
         */
        public Builder<M> hotKeySampling(int every) {
            this.hotKeySampling = Require.positive(every, "hotKeySampling");
            return this;
        }

        public AggregateDispatcher<M> build() {
            return new AggregateDispatcher<>(this);
        }
    }
}
