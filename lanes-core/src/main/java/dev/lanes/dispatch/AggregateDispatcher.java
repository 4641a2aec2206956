package dev.lanes.dispatch;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.ExchangeRejectedException.Reason;
import dev.lanes.dispatch.Settlement.Step;
import dev.lanes.internal.Immediate;
import dev.lanes.internal.Require;
import dev.lanes.lifecycle.ActivityLease;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
 * reach each lane as one chain when the request returns (see {@link LaneWriter}); exchanges emitted from elsewhere (a
 * producer thread emitting into a sink) are queued and admitted in batches by a drain that runs on a worker (one
 * hand-off per drain, not per exchange; see {@link Intake}), in delivery order with the others.
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
 * <p><b>Reading it.</b> Its body follows an exchange: admission (the {@code Gate} its {@link LaneWriter} asks), the lane
 * ({@code drain}: one owner at a time runs a lane's envelopes in order), the handler ({@code attempt}: called at once,
 * its {@code Mono} run at once through {@link dev.lanes.internal.Immediate} or subscribed), and the settling of what the
 * handler did, which is {@link Settlement}'s (acknowledge, retry, park, hand back, time out). What it counts (slots,
 * totals, timings, hot ids) is {@link DispatchCounts}'.
 *
 * <p><b>Lifecycle</b> (one-way): {@code NEW -prepare-> PREPARED -start-> RUNNING -quiesce-> STOPPING -drained->
 * STOPPED}; {@link #forceStop()} goes to {@code STOPPED} from anywhere. After stop, exchanges still delivered by the
 * source are rejected to it with {@link Reason#STOPPING}. Exchanges delivered on another thread and still queued for
 * their drain count as {@linkplain #holdsUnleasedWork() unleased work}, so a runtime's shutdown does not quiesce the
 * dispatcher before the drain admitted them; a stop that begins anyway (the dispatcher stopped directly, or a runtime
 * that closed admission at once) waits for the drain, which hands them back with {@link Reason#STOPPING}.
 *
 * @param <M> the message type
 */
public final class AggregateDispatcher<M> implements RuntimeComponent {
    private static final Logger log = LoggerFactory.getLogger(AggregateDispatcher.class);
    /** Envelopes a lane handles in a row before it yields its worker to other lanes. */
    private static final int LANE_BATCH = 64;

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
    private final boolean rejectOverBound;
    private final DispatcherMetrics metrics;
    private final Scheduler cleanup;

    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final Lane.LaneRunner<M> owner;
    /** Its concrete type, so that the fast path's call to it is a direct one. */
    private final Attempts attempts = new Attempts();

    private final LaneRegistry<M> lanes;
    private final @Nullable HandlerSweep<M> sweep;
    private final Intake<M> intake;
    private final DispatchCounts counts;
    private final Settlement<M> settlement;
    private final AtomicReference<@Nullable Throwable> fault = new AtomicReference<>();
    private final Sinks.Empty<Void> terminated = Sinks.empty();
    private final Mono<Void> gracefulStop;
    private volatile RuntimeContext context = RuntimeContext.standalone();
    private volatile @Nullable Scheduler scheduler;
    private volatile Executor executor = task -> {
        throw new RejectedExecutionException("not prepared");
    };

    private AggregateDispatcher(Builder<M> builder) {
        this.name = Require.notBlank(builder.name, "name");
        this.namedAggregate = builder.namedAggregate;
        this.source = Objects.requireNonNull(builder.source, "source");
        this.handler = Objects.requireNonNull(builder.handler, "handler");
        this.schedulers = Objects.requireNonNull(builder.schedulers, "schedulers");
        this.settings = builder.settings;
        this.rejectOverBound = settings.overflow() == LaneSettings.Overflow.REJECT;
        this.metrics = builder.metrics;
        this.cleanup = builder.cleanup;
        this.counts = new DispatchCounts(metrics != DispatcherMetrics.NONE, builder.nanoTime, builder.hotKeySampling);
        this.settlement = new Settlement<>(this, settings.retryPolicy(), builder.parkingLot, counts);
        this.owner = new Owner();
        this.lanes = LaneRegistry.of(settings, owner);
        HandlerTimeout limits = settings.handlerTimeout();
        this.sweep = limits == null
                ? null
                : new HandlerSweep<>(lanes, limits, settlement.new Timeouts(limits, handler), toString());
        this.intake = new Intake<>(
                new LaneWriter<>(lanes, new Gate()), this::sourceFailed, this::runOnCleanup, settings.maxQueued());
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

    /** Whether it is running: not stopping, not stopped. */
    boolean running() {
        return state.get() == State.RUNNING;
    }

    /** Whether it is stopped: after a force stop, every envelope was (or will be) settled by the stop. */
    boolean forceStopped() {
        return state.get() == State.STOPPED;
    }

    /**
     * A live view: queued, in flight, lanes, skew, outcome totals, hottest ids. Any thread; it scans the lanes that hold
     * work, and the per-lane figures are racy reads (exact totals, approximate depths).
     */
    public DispatcherStats stats() {
        return counts.stats(lanes);
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
            counts.bind(new SafeRecorder(metrics.bind(name, namedAggregate, this::stats), this));
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
            counts.closeRecorder();
            throw new IllegalStateException(this + " was stopped while preparing (state " + current + ")");
        }
    }

    /** Opens demand: exchanges flow from the source into lanes. */
    @Override
    public void start() {
        transition(State.PREPARED, State.RUNNING, "start");
        intake.start(this::runOnWorker);
    }

    /**
     * Whether exchanges its source delivered are on their way to admission without a lease yet (queued for the drain a
     * delivering thread handed to a worker, or gathered in a request's burst): the runtime's quiet period waits for
     * them. Any thread; never throws.
     */
    @Override
    public boolean holdsUnleasedWork() {
        return intake.holdsUnleasedWork();
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
        settlement.rejected(
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
                && counts.admitted() == 0
                && state.compareAndSet(State.STOPPING, State.STOPPED)) {
            terminate();
        }
    }

    private void terminate() {
        if (sweep != null) {
            sweep.stop();
        }
        counts.closeRecorder();
        Throwable failed = fault.get();
        if (failed == null) {
            terminated.tryEmitEmpty();
        } else {
            terminated.tryEmitError(failed);
        }
    }

    /** Runs a cancellation that may block on the cleanup scheduler, or inline if it refuses; never throws. */
    void runOnCleanup(Runnable cancellation) {
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
        @Override
        public void reserve(int slots) {
            counts.reserve(slots);
        }

        @Override
        public void unreserve(int slots) {
            if (slots > 0 && counts.release(slots) == 0) {
                intake.release(0, true); // credits gathered while the reservation was held go out now
                terminateIfDrained();
            }
        }

        @Override
        public boolean running() {
            return AggregateDispatcher.this.running();
        }

        @Override
        public boolean forceStopped() {
            return AggregateDispatcher.this.forceStopped();
        }

        @Override
        public void refuseStopping(MessageExchange<M> exchange) {
            settlement.refuse(
                    exchange,
                    Reason.STOPPING,
                    AggregateDispatcher.this + " is " + state() + "; not taking " + Settlement.describe(exchange));
        }

        @Override
        public void refuseUnroutable(MessageExchange<M> exchange, RuntimeException cause) {
            settlement.refuse(
                    exchange,
                    Reason.UNROUTABLE,
                    AggregateDispatcher.this + " cannot route an exchange whose aggregateId() failed: " + cause);
        }

        @Override
        public @Nullable Envelope<M> envelope(MessageExchange<M> exchange, Lane<M> lane, int staged) {
            if (rejectOverBound && lane.depth() + staged >= settings.maxQueuedPerLane()) {
                settlement.refuse(
                        exchange,
                        Reason.LANE_FULL,
                        AggregateDispatcher.this + " lane of " + exchange.aggregateId() + " is full (maxQueuedPerLane="
                                + settings.maxQueuedPerLane() + ", queued in dispatcher=" + counts.admitted() + ")");
                return null;
            }
            ActivityLease lease = acquireLease(exchange);
            if (lease == null) {
                return null;
            }
            counts.sampleHotKey(exchange);
            return new Envelope<>(exchange, lease, counts.admittedAt());
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
            settlement.refuse(exchange, Reason.FAULT, this + " could not acquire an activity lease: " + error);
            fail(error);
            return null;
        }
        if (lease == null) {
            settlement.refuse(
                    exchange, Reason.ADMISSION_CLOSED, this + " admission is closed; " + exchange.aggregateId());
        }
        return lease;
    }

    private void sourceFailed(Throwable error) {
        fail(new IllegalStateException(this + " source failed", error));
        quiesce();
    }

    // ---------------------------------------------------------------- lanes

    /*
     * A scheduler that throws anything when handed work refuses it: Reactor's own throw RejectedExecutionException, a
     * user's may throw what it likes, and work it threw for must not be left owned by nobody (a lane never run, a drain
     * that never lets go of the producer side).
     */

    /** Runs a task of the dispatcher's own on a worker, or here if the scheduler refuses it. */
    private void runOnWorker(Runnable task) {
        try {
            executor.execute(task);
        } catch (RuntimeException refused) {
            task.run();
        }
    }

    /** Hands lanes that became ready together to a worker; the caller owned them and gives them up. */
    private void execute(LaneBatch<M> batch) {
        try {
            executor.execute(batch);
        } catch (RuntimeException refused) {
            for (Lane<M> lane : batch.lanes()) {
                schedulerRefused(lane, refused);
            }
        }
    }

    /** Hands a lane to a worker; the caller owned it and gives it up. */
    private void execute(Lane<M> lane) {
        try {
            executor.execute(lane);
        } catch (RuntimeException refused) {
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
        counts.attemptStarted(envelope);
        envelope.attempts++;
        Mono<Void> handling;
        try {
            handling = Objects.requireNonNull(handler.handle(envelope.exchange), "handler returned null");
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            return settlement.conclude(lane, envelope, error);
        }
        // Mono.empty(), just, fromRunnable, fromCallable, error: called here, as Reactor's flatMap does
        return Immediate.then(handling, lane, envelope, attempts);
    }

    /** What follows a handler's {@code Mono}: concluded at once if it ended at once, else subscribed. */
    private final class Attempts implements Immediate.Continuation<Lane<M>, Envelope<M>, Step> {
        @Override
        public Step ended(Lane<M> lane, Envelope<M> envelope, @Nullable Throwable error) {
            return settlement.conclude(lane, envelope, error);
        }

        @Override
        public Step running(Lane<M> lane, Envelope<M> envelope, Mono<?> handling) {
            return subscribe(lane, envelope, handling);
        }
    }

    /** Subscribes to a handler that did not end at once; its owner lets the lane go unless it ended meanwhile. */
    private Step subscribe(Lane<M> lane, Envelope<M> envelope, Mono<?> handling) {
        lane.handOver(); // the handler's end may continue the lane elsewhere: its count must be exact by then
        HandlerSubscriber<M> subscriber = new HandlerSubscriber<>(lane, envelope, settlement, startTick());
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
        return settlement.conclude(lane, envelope, subscriber.error());
    }

    /** The sweep's count for an attempt that goes asynchronous now; 0 when no sweep times handlers. */
    long startTick() {
        HandlerSweep<M> timing = sweep;
        return timing == null ? 0L : timing.startTick();
    }

    // ---------------------------------------------------------------- settled: the lane moves on

    /** A lane's current envelope was settled outside its drain (see {@link Settlement#handlerEnded}): move on. */
    void moveOn(Lane<M> lane) {
        boolean more = advance(lane);
        freeSlots(1);
        if (more) {
            execute(lane);
        }
    }

    /** A retry continues the lane after {@code backoff}, from the scheduler. */
    void retryLater(Lane<M> lane, Duration backoff) {
        lane.handOver(); // the retry continues the lane elsewhere: its count must be exact by then
        try {
            Objects.requireNonNull(scheduler, "scheduler").schedule(lane, backoff.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RuntimeException refused) {
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

    /**
     * The scheduler refused work for a lane the caller owns: every envelope of the lane goes back to its source, and the
     * owner is told. After a force stop, the stop has rejected them already.
     */
    private void schedulerRefused(Lane<M> lane, RuntimeException refused) {
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
            settlement.reject(
                    envelope,
                    Outcome.REJECTED,
                    new ExchangeRejectedException(Reason.FAULT, this + " scheduler refused work", refused));
        } while (advance(lane));
    }

    /** Frees the slots of settled envelopes: the intake may take as many more. */
    void freeSlots(int slots) {
        int remaining = counts.release(slots);
        intake.release(slots, remaining == 0);
        if (remaining == 0) {
            terminateIfDrained();
        }
    }

    /** Records an infrastructure fault (the first fails the stop) and reports it to the runtime. */
    void fail(Throwable error) {
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
