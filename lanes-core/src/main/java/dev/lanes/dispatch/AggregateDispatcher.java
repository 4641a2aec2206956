package dev.lanes.dispatch;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.DispatcherMetrics.LaneRecorder;
import dev.lanes.dispatch.ExchangeRejectedException.Reason;
import dev.lanes.internal.Immediate;
import dev.lanes.internal.Require;
import dev.lanes.lifecycle.ActivityLease;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.Executor;
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
 * <p><b>Bounds.</b> The dispatcher holds at most {@code maxQueued} admitted exchanges, whichever lanes they are in: at
 * that bound it stops requesting from its source until one is settled. That is the memory bound, under either overflow
 * policy. Under {@link LaneSettings.Overflow#REJECT} a lane holds at most {@code maxQueuedPerLane}, and more for it are
 * rejected back to their source ({@link Reason#LANE_FULL}); under {@link LaneSettings.Overflow#PAUSE} a lane past
 * {@code maxQueuedPerLane} keeps taking from the shared budget. Either way a stuck lane stops no other lane until the
 * whole budget is used up.
 *
 * <p><b>Threads.</b> Each lane is a queue with a work-in-progress count: the thread that makes a lane busy hands it to
 * a worker, which runs its exchanges one after the other while their handlers end at once (up to a batch, then the lane
 * goes back to the workers' queue); a handler that ends later continues the lane from wherever it ends, through a
 * worker. Nothing is locked per exchange. With the schedulers of {@link
 * dev.lanes.scheduler.AggregateSchedulers} any free worker of the type takes the next ready lane. The
 * exchanges a source emits inside the dispatcher's own request, on the requesting thread, are admitted in batches and
 * reach each lane as one chain when the request returns (see {@link LaneWriter}); exchanges emitted from elsewhere are
 * admitted one by one, in delivery order with the others.
 *
 * <p><b>Failures.</b> A handler error is retried inside the lane by the {@link RetryPolicy}, then the exchange is
 * parked with its error and acknowledged, and the lane moves on. Only infrastructure faults (the scheduler refuses
 * work, the source fails, parking fails) are reported to the {@link RuntimeContext} as fatal.
 *
 * <p><b>Hung handlers.</b> With a {@link LaneSettings#handlerTimeout()} (the default), an attempt whose {@code Mono} is
 * still running at the warning threshold is logged once at WARN, and one still running at the timeout is cancelled and
 * fails with a {@link HandlerTimeoutException}, retried and parked like any handler error; the lane moves on at once
 * and the handler's later end is ignored. One periodic sweep per dispatcher times the running attempts (see {@link
 * HandlerSweep}); a handler that ends at once is not timed at all. While stopping, a timed-out attempt is not retried:
 * its exchange goes back to its source ({@link Reason#STOPPING}, counted {@code CANCELLED}), so a graceful stop waits
 * at most about one timeout for a hung handler.
 *
 * <p><b>Lifecycle</b> (one-way): {@code NEW -prepare-> PREPARED -start-> RUNNING -quiesce-> STOPPING -drained->
 * STOPPED}; {@link #forceStop()} goes to {@code STOPPED} from anywhere. After stop, exchanges still delivered by the
 * source are rejected to it with {@link Reason#STOPPING}.
 *
 * @param <M> the message type
 */
public final class AggregateDispatcher<M> implements RuntimeComponent, HandlerSubscriber.Completion<M> {
    private static final Logger log = LoggerFactory.getLogger(AggregateDispatcher.class);
    /** Envelopes a lane handles in a row before it yields its worker to other lanes. */
    private static final int LANE_BATCH = 64;

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

    /** What became of one attempt, for the lane that made it. */
    private enum Step {
        /** Settled here (handled or parked): the lane may take its next envelope, then free the slot. */
        DONE,
        /** The handler goes on asynchronously; its end continues the lane. */
        ASYNC,
        /** A retry is scheduled; it continues the lane. */
        RETRY,
        /** A force stop (or a fault) settled the envelope and freed its slot: the lane stops. */
        STOPPED
    }

    private final String name;
    private final MaterializedNamedAggregate namedAggregate;
    private final Flux<? extends MessageExchange<M>> source;
    private final ExchangeHandler<M> handler;
    private final AggregateSchedulerSupplier schedulers;
    private final LaneSettings settings;
    private final boolean rejectOverBound;
    private final ParkingLot parkingLot;
    private final DispatcherMetrics metrics;
    private final boolean timed;
    private final LongSupplier nanoTime;
    private final Scheduler cleanup;

    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final Lane.LaneRunner<M> owner;
    /** Its concrete type, so that the fast path's call to it is a direct one. */
    private final Attempts attempts = new Attempts();

    private final LaneRegistry<M> lanes;
    private final @Nullable HandlerSweep<M> sweep;
    private final Intake<M> intake;
    private final HotKeyTracker hotKeys;
    private final AtomicInteger admitted = new AtomicInteger();
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
    private volatile Executor executor = task -> {
        throw new RejectedExecutionException("not prepared");
    };
    private final int hotKeySampling;

    private AggregateDispatcher(Builder<M> builder) {
        this.name = Require.notBlank(builder.name, "name");
        this.namedAggregate = builder.namedAggregate;
        this.source = Objects.requireNonNull(builder.source, "source");
        this.handler = Objects.requireNonNull(builder.handler, "handler");
        this.schedulers = Objects.requireNonNull(builder.schedulers, "schedulers");
        this.settings = builder.settings;
        this.rejectOverBound = settings.overflow() == LaneSettings.Overflow.REJECT;
        this.parkingLot = builder.parkingLot;
        this.metrics = builder.metrics;
        this.timed = builder.metrics != DispatcherMetrics.NONE;
        this.nanoTime = builder.nanoTime;
        this.cleanup = builder.cleanup;
        this.owner = new Owner();
        this.lanes = LaneRegistry.of(settings, owner);
        HandlerTimeout limits = settings.handlerTimeout();
        this.sweep = limits == null ? null : new HandlerSweep<>(lanes, limits, new Sweeper(limits), toString());
        this.hotKeySampling = builder.hotKeySampling;
        this.intake = new Intake<>(
                new LaneWriter<>(lanes, new Gate()), this::sourceFailed, this::runOnCleanup, settings.maxQueued());
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

    /**
     * A live view: queued, in flight, lanes, skew, outcome totals, hottest ids. Any thread; it scans the lanes that hold
     * work, and the per-lane figures are racy reads (exact totals, approximate depths).
     */
    public DispatcherStats stats() {
        long[] scan = new long[4]; // deepest, sum, lanes holding work, lanes handling now
        lanes.forEach(lane -> {
            int depth = lane.depth();
            scan[0] = Math.max(scan[0], depth);
            scan[1] += depth;
            scan[2] += depth > 0 ? 1 : 0;
            scan[3] += lane.current != null ? 1 : 0;
        });
        double mean = scan[2] == 0 ? 0 : (double) scan[1] / scan[2];
        return new DispatcherStats(
                admitted.get(),
                (int) scan[3],
                (int) scan[2],
                (int) scan[0],
                mean == 0 ? 0 : scan[0] / mean,
                handled.sum(),
                retried.sum(),
                parked.sum(),
                rejected.sum(),
                cancelled.sum(),
                hotKeys.hottest(hotKeySampling));
    }

    // ---------------------------------------------------------------- lifecycle

    /**
     * Resolves the scheduler, binds metrics and subscribes the source without demand; handles nothing. Fails, leaving
     * the source unsubscribed, if the dispatcher was stopped meanwhile; a source whose subscription throws is recorded
     * as the dispatcher's fault.
     */
    @Override
    public Mono<Void> prepare(RuntimeContext context) {
        Objects.requireNonNull(context, "context");
        return Mono.fromRunnable(() -> {
            transition(State.NEW, State.PREPARED, "prepare");
            this.context = context;
            Scheduler resolved = schedulers.getOrInitialize(namedAggregate);
            this.scheduler = resolved;
            this.executor = resolved instanceof Executor direct ? direct : resolved::schedule;
            if (sweep != null) {
                sweep.bind(resolved);
            }
            this.recorder = new SafeRecorder(metrics.bind(name, namedAggregate, this::stats), this);
            requirePrepared();
            subscribeSource();
            requirePrepared();
        });
    }

    private void subscribeSource() {
        try {
            source.subscribe(intake);
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            fail(new IllegalStateException(this + " could not subscribe to its source", error));
            quiesce();
            throw error;
        }
        Throwable failed = fault.get();
        if (failed != null) {
            throw Exceptions.propagate(failed);
        }
    }

    /** While preparing: a stop meanwhile leaves the source unsubscribed and fails the preparation. */
    private void requirePrepared() {
        State current = state();
        if (current != State.PREPARED) {
            intake.cancel();
            recorder.close();
            throw new IllegalStateException(this + " was stopped while preparing (state " + current + ")");
        }
    }

    /** Opens demand: exchanges flow from the source into lanes. */
    @Override
    public void start() {
        transition(State.PREPARED, State.RUNNING, "start");
        intake.start(this::runOnWorker);
    }

    /** Stops taking exchanges from the source; admitted ones still run. Prompt and idempotent; never throws. */
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
                    intake.cancel();
                    terminateIfDrained();
                    return;
                }
            } else {
                return;
            }
        }
    }

    /**
     * Quiesces on subscription, then completes when every admitted exchange has been settled, in lane order and without
     * cancelling a handler before its {@linkplain LaneSettings#handlerTimeout() timeout} (one that runs past it is
     * cancelled and its exchange handed back to its source, not retried). Errors with the first infrastructure fault, if
     * one occurred. The same instance every call.
     */
    @Override
    public Mono<Void> stopGracefully() {
        return gracefulStop;
    }

    /**
     * Stops at once: in-flight handlers are cancelled and queued exchanges rejected to their source with {@link
     * Reason#FORCED}, each exactly once: an exchange whose handler had not started is counted {@code REJECTED} and its
     * handler never runs; one whose handler had started is counted {@code CANCELLED} (a subscribed handler is
     * cancelled; one running synchronously finishes its call, and its result is ignored). Source and handler
     * cancellation run on the cleanup scheduler, so this returns promptly even if a cancel hook blocks (and inline, if
     * that scheduler refuses them). Idempotent; safe in any state; never throws.
     */
    @Override
    public void forceStop() {
        State previous = state.getAndSet(State.STOPPED);
        if (previous == State.STOPPED) {
            return;
        }
        intake.cancel();
        int[] taken = {0};
        lanes.forEach(lane -> taken[0] += abandon(lane));
        log.info("{} force-stopped: {} exchange(s) rejected to their source", this, taken[0]);
        terminate();
    }

    /** Rejects every unsettled envelope of {@code lane}, walking its queue from the oldest that may be unsettled. */
    private int abandon(Lane<M> lane) {
        int count = 0;
        lane.depth(); // a volatile read: what was counted before the stop is linked
        for (LaneNode node = lane.oldest(); node != null; ) {
            if (node instanceof Envelope<?> queued) {
                @SuppressWarnings("unchecked")
                Envelope<M> envelope = (Envelope<M>) queued;
                count += rejectForced(envelope) ? 1 : 0;
            }
            LaneNode next = node.nextNode();
            node = next == node ? lane.oldest() : next; // consumed meanwhile: the owner moved on from it
        }
        return count;
    }

    /**
     * Rejects an envelope for a force stop, if the stop settles it first: as {@code CANCELLED} if its handler had
     * started (a subscribed handler is cancelled; one running synchronously finishes its call, and its result is
     * ignored), else as {@code REJECTED}.
     */
    private boolean rejectForced(Envelope<M> envelope) {
        int from = envelope.settle();
        if (from < 0) {
            return false;
        }
        boolean started = from == Envelope.RUNNING;
        rejected(
                envelope,
                started ? Outcome.CANCELLED : Outcome.REJECTED,
                new ExchangeRejectedException(
                        Reason.FORCED,
                        this + " was force-stopped " + (started ? "while handling " : "before handling ")
                                + envelope.exchange.aggregateId()));
        freeSlots(1);
        HandlerSubscriber<M> running = envelope.running;
        if (running != null) {
            runOnCleanup(running::cancel);
        }
        return true;
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
        if (sweep != null) {
            sweep.stop();
        }
        recorder.close();
        Throwable failed = fault.get();
        if (failed == null) {
            terminated.tryEmitEmpty();
        } else {
            terminated.tryEmitError(failed);
        }
    }

    /** Runs a cancellation that may block on the cleanup scheduler, or inline if it refuses; never throws. */
    private void runOnCleanup(Runnable cancellation) {
        try {
            cleanup.schedule(() -> cancelQuietly(cancellation));
        } catch (RuntimeException refused) {
            log.warn("{} cleanup scheduler refused a cancellation ({}); cancelling inline", this, refused.toString());
            cancelQuietly(cancellation);
        }
    }

    private void cancelQuietly(Runnable cancellation) {
        try {
            cancellation.run();
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            log.warn("{} cancellation failed", this, error);
        }
    }

    // ---------------------------------------------------------------- intake

    /**
     * What the producer side ({@link LaneWriter}, called serially) asks the dispatcher: the state, the bounds, leases and
     * hot ids, refusals, and hand-offs of the lanes it comes to own.
     */
    private final class Gate implements LaneWriter.Admission<M> {
        private int untilHotKeySample = hotKeySampling;

        @Override
        public void reserve(int slots) {
            admitted.addAndGet(slots);
        }

        @Override
        public void unreserve(int slots) {
            if (slots > 0 && admitted.addAndGet(-slots) == 0) {
                intake.release(0, true); // credits gathered while the reservation was held go out now
                terminateIfDrained();
            }
        }

        @Override
        public boolean running() {
            return state.get() == State.RUNNING;
        }

        @Override
        public boolean forceStopped() {
            return state.get() == State.STOPPED;
        }

        @Override
        public void refuseStopping(MessageExchange<M> exchange) {
            refuse(
                    exchange,
                    Reason.STOPPING,
                    AggregateDispatcher.this + " is " + state() + "; not taking " + describe(exchange));
        }

        @Override
        public void refuseUnroutable(MessageExchange<M> exchange, RuntimeException cause) {
            refuse(
                    exchange,
                    Reason.UNROUTABLE,
                    AggregateDispatcher.this + " cannot route an exchange whose aggregateId() failed: " + cause);
        }

        @Override
        public @Nullable Envelope<M> envelope(MessageExchange<M> exchange, Lane<M> lane, int staged) {
            if (rejectOverBound && lane.depth() + staged >= settings.maxQueuedPerLane()) {
                refuse(
                        exchange,
                        Reason.LANE_FULL,
                        AggregateDispatcher.this + " lane of " + exchange.aggregateId() + " is full (maxQueuedPerLane="
                                + settings.maxQueuedPerLane() + ", queued in dispatcher=" + admitted.get() + ")");
                return null;
            }
            ActivityLease lease = acquireLease(exchange);
            if (lease == null) {
                return null;
            }
            if (--untilHotKeySample == 0) {
                untilHotKeySample = hotKeySampling;
                hotKeys.record(exchange.aggregateId().id());
            }
            return new Envelope<>(exchange, lease, timed ? nanoTime.getAsLong() : 0L);
        }

        @Override
        public void run(Lane<M>[] ready, int count) {
            int perTask = LaneBatch.lanesPerTask(count);
            if (perTask == 1) {
                for (int i = 0; i < count; i++) {
                    execute(ready[i]);
                }
                return;
            }
            for (int from = 0; from < count; from += perTask) {
                execute(new LaneBatch<>(Arrays.copyOfRange(ready, from, Math.min(count, from + perTask)), owner));
            }
        }

        @Override
        public void abandon(Lane<M> lane) {
            AggregateDispatcher.this.abandon(lane);
        }
    }

    private @Nullable ActivityLease acquireLease(MessageExchange<M> exchange) {
        ActivityLease lease;
        try {
            lease = context.tryAcquire();
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            refuse(exchange, Reason.FAULT, this + " could not acquire an activity lease: " + error);
            fail(error);
            return null;
        }
        if (lease == null) {
            refuse(exchange, Reason.ADMISSION_CLOSED, this + " admission is closed; " + exchange.aggregateId());
        }
        return lease;
    }

    private static String describe(MessageExchange<?> exchange) {
        try {
            return String.valueOf(exchange.aggregateId());
        } catch (RuntimeException unreadable) {
            return "an exchange whose aggregate id cannot be read (" + unreadable + ")";
        }
    }

    /** Hands an exchange that never entered a lane back to its source and frees its slot. */
    private void refuse(MessageExchange<M> exchange, Reason reason, String message) {
        rejected.increment();
        recorder.outcome(Outcome.REJECTED, 0);
        rejectQuietly(exchange, new ExchangeRejectedException(reason, message));
        freeSlots(1);
    }

    private void sourceFailed(Throwable error) {
        fail(new IllegalStateException(this + " source failed", error));
        quiesce();
    }

    // ---------------------------------------------------------------- lanes

    /** Runs a task of the dispatcher's own on a worker, or here if the scheduler refuses it. */
    private void runOnWorker(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException refused) {
            task.run();
        }
    }

    /** Hands lanes that became ready together to a worker; the caller owned them and gives them up. */
    private void execute(LaneBatch<M> batch) {
        try {
            executor.execute(batch);
        } catch (RejectedExecutionException refused) {
            for (Lane<M> lane : batch.lanes()) {
                schedulerRefused(lane, refused);
            }
        }
    }

    /** Hands a lane to a worker; the caller owned it and gives it up. */
    private void execute(Lane<M> lane) {
        try {
            executor.execute(lane);
        } catch (RejectedExecutionException refused) {
            schedulerRefused(lane, refused);
        }
    }

    /**
     * Runs the lane as its owner: envelopes whose handler ends at once are handled in a row on this thread (up to a
     * batch, then the lane yields its worker); an asynchronous end or a retry continues the lane later.
     */
    private void drain(Lane<M> lane) {
        int settled = drainHeld(lane);
        if (settled > 0) {
            freeSlots(settled); // after the lane moved on, so lanes never outnumber admitted exchanges
        }
    }

    /** Like {@link #drain}, but the slots settled are the caller's to free (several lanes free theirs at once). */
    private int drainHeld(Lane<M> lane) {
        int settled = 0; // slots to free once the lane has moved past them
        // linked envelopes this owner may take without looking at the count again (the current one is not among them)
        int available = lane.depth() - (lane.current != null ? 1 : 0);
        try {
            for (int budget = LANE_BATCH; ; ) {
                if (state.get() == State.STOPPED) {
                    return settled; // force-stopped: every envelope was, or will be, rejected by the stop
                }
                Envelope<M> envelope = lane.current;
                if (envelope == null) {
                    if (available == 0) {
                        available = lanes.complete(lane);
                        if (available == 0) {
                            return settled;
                        }
                    }
                    available--;
                    envelope = lane.poll();
                    lane.current = envelope;
                }
                if (attempt(lane, envelope) != Step.DONE) {
                    return settled; // handed on: attempt subtracted what the lane had finished before it let go
                }
                lane.current = null;
                lane.finish();
                settled++;
                if (--budget == 0) {
                    if (lanes.complete(lane) == 0) {
                        return settled;
                    }
                    freeSlots(settled);
                    execute(lane); // yield the worker; the lane goes back to the workers' queue
                    return 0;
                }
            }
        } catch (RuntimeException | Error unexpected) {
            if (settled > 0) {
                freeSlots(settled);
            }
            throw unexpected;
        }
    }

    /** How lanes (and {@link LaneBatch}es) run as their owner; kept off the dispatcher's public surface. */
    private final class Owner implements Lane.LaneRunner<M> {
        @Override
        public void drain(Lane<M> lane) {
            AggregateDispatcher.this.drain(lane);
        }

        @Override
        public int drainHeld(Lane<M> lane) {
            return AggregateDispatcher.this.drainHeld(lane);
        }

        @Override
        public void free(int slots) {
            freeSlots(slots);
        }
    }

    private Step attempt(Lane<M> lane, Envelope<M> envelope) {
        if (!envelope.tryStart()) {
            return Step.STOPPED;
        }
        if (timed) {
            long now = nanoTime.getAsLong();
            if (envelope.attempts == 0) {
                recorder.queueWait(now - envelope.admittedAt);
            }
            envelope.startedAt = now;
        }
        envelope.attempts++;
        Mono<Void> handling;
        try {
            handling = Objects.requireNonNull(handler.handle(envelope.exchange), "handler returned null");
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            return conclude(lane, envelope, error);
        }
        // Mono.empty(), just, fromRunnable, fromCallable, error: called here, as Reactor's flatMap does
        return Immediate.then(handling, lane, envelope, attempts);
    }

    /** What follows a handler's {@code Mono}: concluded at once if it ended at once, else subscribed. */
    private final class Attempts implements Immediate.Continuation<Lane<M>, Envelope<M>, Step> {
        @Override
        public Step ended(Lane<M> lane, Envelope<M> envelope, @Nullable Throwable error) {
            return conclude(lane, envelope, error);
        }

        @Override
        public Step running(Lane<M> lane, Envelope<M> envelope, Mono<?> handling) {
            return subscribe(lane, envelope, handling);
        }
    }

    /** Subscribes to a handler that did not end at once; its owner lets the lane go unless it ended meanwhile. */
    private Step subscribe(Lane<M> lane, Envelope<M> envelope, Mono<?> handling) {
        lane.handOver(); // the handler's end may continue the lane elsewhere: its count must be exact by then
        HandlerSweep<M> timing = sweep;
        HandlerSubscriber<M> subscriber =
                new HandlerSubscriber<>(lane, envelope, this, timing == null ? 0L : timing.startTick());
        envelope.running = subscriber;
        if (!envelope.tryStart()) { // a force stop settled it meanwhile: it saw no handler to cancel, so none starts
            envelope.running = null;
            return Step.STOPPED;
        }
        handling.subscribe(subscriber);
        if (!subscriber.endedWhileSubscribing()) {
            return Step.ASYNC;
        }
        envelope.running = null;
        return conclude(lane, envelope, subscriber.error());
    }

    /** A handler ended after its lane's owner had left it: settle, then continue the lane on a worker. */
    @Override
    public void handlerEnded(Lane<M> lane, Envelope<M> envelope, @Nullable Throwable error) {
        envelope.running = null;
        if (state.get() == State.STOPPED) {
            return; // force-stopped: the stop rejected it
        }
        if (conclude(lane, envelope, error) != Step.DONE) {
            return;
        }
        boolean more = advance(lane);
        freeSlots(1);
        if (more) {
            execute(lane);
        }
    }

    /** Settles an attempt: acknowledged, retried later in the lane, or parked. */
    private Step conclude(Lane<M> lane, Envelope<M> envelope, @Nullable Throwable error) {
        long handlerNanos = timed ? nanoTime.getAsLong() - envelope.startedAt : 0L;
        if (error == null) {
            return acknowledge(envelope, envelope.exchange.setAside() ? Outcome.PARKED : Outcome.HANDLED, handlerNanos);
        }
        if (error instanceof HandlerTimeoutException && state.get() != State.RUNNING) {
            return giveBack(envelope, error);
        }
        if (settings.retryPolicy().shouldRetry(envelope.attempts, error)) {
            retried.increment();
            recorder.outcome(Outcome.RETRIED, handlerNanos);
            retryLater(lane, envelope, error);
            return Step.RETRY;
        }
        return park(envelope, error, handlerNanos);
    }

    /**
     * A handler timed out while the dispatcher stops: no retry (it would hold the stop for another timeout); the
     * exchange goes back to its source, as a force stop would hand it back.
     */
    private Step giveBack(Envelope<M> envelope, Throwable timeout) {
        boolean settledHere = settleRejected(
                envelope,
                Outcome.CANCELLED,
                new ExchangeRejectedException(
                        Reason.STOPPING,
                        this + " is stopping and gave up on " + describe(envelope.exchange)
                                + " after its handler timed out (not retried while stopping)",
                        timeout));
        return settledHere ? Step.DONE : Step.STOPPED;
    }

    /** What the handler-timeout sweep reports: a WARN once per long attempt, and the timeout of a hung one. */
    private final class Sweeper
            implements HandlerSweep.Target<M>, Immediate.Continuation<Lane<M>, Envelope<M>, Boolean> {
        private final HandlerTimeout limits;

        Sweeper(HandlerTimeout limits) {
            this.limits = limits;
        }

        @Override
        public boolean sweeping() {
            return state.get() != State.STOPPED;
        }

        @Override
        public void warn(HandlerSubscriber<M> attempt, Duration ranFor) {
            Envelope<M> envelope = attempt.envelope;
            log.warn(
                    "{} handler for {} has run for more than {} (attempt {}, handling {}); it times out at {}",
                    AggregateDispatcher.this,
                    describe(envelope.exchange),
                    ranFor,
                    envelope.attempts,
                    envelope.exchange.message(),
                    limits.timeout());
        }

        @Override
        public void timeOut(HandlerSubscriber<M> attempt) {
            if (!attempt.tryTimeOut()) {
                return; // the handler ended first (or its owner is still subscribing): its end is reported as usual
            }
            runOnCleanup(attempt::cancel);
            Envelope<M> envelope = attempt.envelope;
            HandlerTimeoutException timeout =
                    new HandlerTimeoutException(name, describe(envelope.exchange), limits.timeout(), envelope.attempts);
            log.warn("{}: {}", AggregateDispatcher.this, timeout.getMessage());
            if (attempt.afterTimeout || state.get() != State.RUNNING) {
                handlerEnded(attempt.lane, envelope, timeout); // while stopping: handed back, see conclude
                return;
            }
            endAfterTimeout(attempt.lane, envelope, timeout);
        }

        /** Lets the handler say how the timed-out attempt ends ({@link ExchangeHandler#timedOut}), then settles it. */
        private void endAfterTimeout(Lane<M> lane, Envelope<M> envelope, HandlerTimeoutException timeout) {
            Mono<Void> answer;
            try {
                answer = Objects.requireNonNull(handler.timedOut(envelope.exchange, timeout), "timedOut returned null");
            } catch (Throwable error) {
                Exceptions.throwIfJvmFatal(error);
                error.addSuppressed(timeout);
                handlerEnded(lane, envelope, error);
                return;
            }
            Immediate.then(answer, lane, envelope, this);
        }

        /** The handler's answer ended at once: settled here (the answer is ignored). */
        @Override
        public Boolean ended(Lane<M> lane, Envelope<M> envelope, @Nullable Throwable error) {
            handlerEnded(lane, envelope, error);
            return true;
        }

        /** The handler's answer runs on: subscribed, and timed out at last like any attempt. */
        @Override
        public Boolean running(Lane<M> lane, Envelope<M> envelope, Mono<?> answer) {
            HandlerSweep<M> timing = Objects.requireNonNull(sweep, "sweep");
            HandlerSubscriber<M> subscriber =
                    new HandlerSubscriber<>(lane, envelope, AggregateDispatcher.this, timing.startTick(), true);
            envelope.running = subscriber;
            if (state.get() == State.STOPPED) { // a force stop that read the cancelled subscriber cancels no other
                envelope.running = null;
                return true;
            }
            answer.subscribe(subscriber);
            if (subscriber.endedWhileSubscribing()) {
                envelope.running = null;
                handlerEnded(lane, envelope, subscriber.error());
            }
            return true;
        }
    }

    private void retryLater(Lane<M> lane, Envelope<M> envelope, Throwable error) {
        Duration backoff = settings.retryPolicy().backoff(envelope.attempts);
        log.debug("{} retrying {} in {} after: {}", this, envelope.exchange.aggregateId(), backoff, error.toString());
        lane.handOver(); // the retry continues the lane elsewhere: its count must be exact by then
        try {
            Objects.requireNonNull(scheduler, "scheduler").schedule(lane, backoff.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException refused) {
            schedulerRefused(lane, refused);
        }
    }

    /**
     * The current envelope is done, outside a drain: true if the lane has another, which the caller must hand to a
     * worker (the count is settled for that hand-off).
     */
    private boolean advance(Lane<M> lane) {
        lane.current = null;
        lane.finish();
        return lanes.complete(lane) > 0;
    }

    private Step park(Envelope<M> envelope, Throwable error, long handlerNanos) {
        MessageExchange<M> exchange = envelope.exchange;
        try {
            parkingLot.park(new ParkedMessage(
                    name, exchange.aggregateId(), exchange.message(), error, envelope.attempts, Instant.now()));
        } catch (Throwable parkingFailed) {
            Exceptions.throwIfJvmFatal(parkingFailed);
            parkingFailed.addSuppressed(error);
            boolean settledHere = settleRejected(
                    envelope,
                    Outcome.REJECTED,
                    new ExchangeRejectedException(
                            Reason.FAULT, this + " could not park " + exchange.aggregateId(), parkingFailed));
            fail(parkingFailed);
            return settledHere ? Step.DONE : Step.STOPPED;
        }
        return acknowledge(envelope, Outcome.PARKED, handlerNanos);
    }

    /**
     * The scheduler refused work for a lane the caller owns: every envelope of the lane goes back to its source, and the
     * owner is told. After a force stop, the stop has rejected them already.
     */
    private void schedulerRefused(Lane<M> lane, RejectedExecutionException refused) {
        if (state.get() == State.STOPPED) {
            return;
        }
        fail(new IllegalStateException(this + " scheduler refused work for " + namedAggregate, refused));
        do {
            Envelope<M> envelope = lane.current;
            if (envelope == null) {
                envelope = lane.poll();
                lane.current = envelope;
            }
            reject(
                    envelope,
                    Outcome.REJECTED,
                    new ExchangeRejectedException(Reason.FAULT, this + " scheduler refused work", refused));
        } while (advance(lane));
    }

    // ---------------------------------------------------------------- settling

    /**
     * Settles a handled or parked envelope and counts its outcome, unless a force stop settled it first; its slot is
     * freed by the lane's owner once the lane has moved on.
     */
    private Step acknowledge(Envelope<M> envelope, Outcome outcome, long handlerNanos) {
        if (!envelope.trySettle()) {
            return Step.STOPPED;
        }
        (outcome == Outcome.PARKED ? parked : handled).increment();
        recorder.outcome(outcome, handlerNanos);
        try {
            envelope.exchange.acknowledge();
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            log.error("{} could not acknowledge {} to its source", this, envelope.exchange.aggregateId(), error);
            fail(error);
        }
        envelope.lease.close();
        return Step.DONE;
    }

    /** Settles an envelope unhandled and frees its slot at once. */
    private boolean reject(Envelope<M> envelope, Outcome outcome, ExchangeRejectedException reason) {
        if (!settleRejected(envelope, outcome, reason)) {
            return false;
        }
        freeSlots(1);
        return true;
    }

    /** Settles an envelope unhandled; the caller frees its slot. */
    private boolean settleRejected(Envelope<M> envelope, Outcome outcome, ExchangeRejectedException reason) {
        if (!envelope.trySettle()) {
            return false;
        }
        rejected(envelope, outcome, reason);
        return true;
    }

    /** Counts and reports an envelope this caller settled unhandled, and closes its lease. */
    private void rejected(Envelope<M> envelope, Outcome outcome, ExchangeRejectedException reason) {
        (outcome == Outcome.CANCELLED ? cancelled : rejected).increment();
        recorder.outcome(outcome, 0);
        rejectQuietly(envelope.exchange, reason);
        envelope.lease.close();
    }

    private void rejectQuietly(MessageExchange<M> exchange, ExchangeRejectedException reason) {
        try {
            exchange.reject(reason);
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            log.error("{} could not reject {} to its source ({})", this, describe(exchange), reason, error);
        }
    }

    private void freeSlots(int slots) {
        int remaining = admitted.addAndGet(-slots);
        intake.release(slots, remaining == 0);
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
        private ParkingLot parkingLot = ParkingLots.inMemory();
        private DispatcherMetrics metrics = DispatcherMetrics.NONE;
        private LongSupplier nanoTime = System::nanoTime;
        private Scheduler cleanup = Schedulers.boundedElastic();
        private int hotKeySampling = 32;

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
         * all. Default 32: the sketch costs a lock and a scan per record, on the serial intake.
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
