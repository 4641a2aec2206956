package dev.lanes.runtime;

import dev.lanes.internal.Require;
import dev.lanes.lifecycle.GracefullyStoppable;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * Owns the components of one service instance (command dispatcher, event dispatchers, bus consumers) as one one-shot
 * lifecycle.
 *
 * <p><b>Start</b> ({@link #start()}): prepare every component in registration order, then, only when all are
 * prepared, start each in order. A failing prepare or start rolls back: the entered components are quiesced and
 * stopped in reverse order (forced if that fails), and the start errors with the failure.
 *
 * <p><b>Stop</b> ({@link #shutdown()}): under one deadline, tell the components that the stop began ({@link
 * RuntimeContext#whenStopping}: they stop taking new work from outside), wait until no activity lease has been open
 * for the quiet period (tail work, such as a saga's command, is still admitted meanwhile), close admission, quiesce
 * components in order, wait until every admitted lease closed, stop components in reverse order. When the deadline wins, every
 * component is forced in reverse order and the report says so. Concurrent callers share one shutdown; cancelling an
 * observer does not cancel it.
 *
 * <p><b>Failures</b>: a component's fatal fault ({@link RuntimeContext#reportFailure}) while running starts the same
 * shutdown without the quiet period; it ends with that error, later ones suppressed.
 *
 * <p>Thread-safety: lifecycle state is guarded by one monitor; component calls are made outside it.
 */
public final class LanesRuntime implements GracefullyStoppable {
    private static final Logger log = LoggerFactory.getLogger(LanesRuntime.class);

    /** The lifecycle states, in order; there is no restart. */
    public enum State {
        NEW,
        STARTING,
        RUNNING,
        STOPPING,
        STOPPED
    }

    private final List<Slot> slots;
    private final Duration shutdownTimeout;
    private final Duration quietPeriod;
    private final Scheduler timer;
    private final Admission admission;
    private final Failures failures = new Failures();
    private final Sinks.One<ShutdownReport> termination = Sinks.one();
    private final Object lock = new Object();
    private State state = State.NEW;
    private boolean stopRequested;
    private boolean forced;
    private long shutdownStartedAt;
    private long admissionClosedAt;
    private long drainedAt;
    private long openAtForce;
    private @Nullable Disposable deadline;
    private @Nullable Disposable pipeline;

    /** A runtime whose quiet period and deadline run on Reactor's parallel scheduler. */
    public LanesRuntime(List<? extends RuntimeComponent> components, Duration shutdownTimeout, Duration quietPeriod) {
        this(components, shutdownTimeout, quietPeriod, Schedulers.parallel());
    }

    /**
     * @param timer where the quiet period and the deadline are timed (a {@code VirtualTimeScheduler} in tests)
     * @throws IllegalArgumentException naming the value if {@code shutdownTimeout <= 0}, {@code quietPeriod} is not
     *     within {@code [0, shutdownTimeout)}, or a component is registered twice
     */
    public LanesRuntime(
            List<? extends RuntimeComponent> components,
            Duration shutdownTimeout,
            Duration quietPeriod,
            Scheduler timer) {
        this.shutdownTimeout = Require.positive(shutdownTimeout, "shutdownTimeout");
        this.quietPeriod = Require.notNegative(quietPeriod, "quietPeriod");
        if (quietPeriod.compareTo(shutdownTimeout) >= 0) {
            throw new IllegalArgumentException(
                    "quietPeriod must be shorter than shutdownTimeout: " + quietPeriod + " >= " + shutdownTimeout);
        }
        this.timer = Objects.requireNonNull(timer, "timer");
        this.slots = slots(Objects.requireNonNull(components, "components"));
        this.admission = new Admission(quietPeriod, timer, this::componentFailed);
    }

    private static List<Slot> slots(List<? extends RuntimeComponent> components) {
        Map<RuntimeComponent, Boolean> seen = new IdentityHashMap<>();
        List<Slot> slots = new ArrayList<>();
        for (RuntimeComponent component : components) {
            Objects.requireNonNull(component, "component");
            if (seen.put(component, Boolean.TRUE) != null) {
                throw new IllegalArgumentException(
                        "Runtime component " + component.name() + " is registered more than once");
            }
            slots.add(new Slot(component));
        }
        return List.copyOf(slots);
    }

    public State state() {
        synchronized (lock) {
            return state;
        }
    }

    /** The context components get at prepare: admission through leases, and the channel for fatal faults. */
    public RuntimeContext context() {
        return admission;
    }

    /** Activity leases open now: admitted work not yet settled. Any thread; a racy read. */
    public long openLeases() {
        return admission.open();
    }

    /** Activity leases admitted since start. Any thread; a racy read. */
    public long admittedLeases() {
        return admission.acquiredInTotal();
    }

    /**
     * Emits the shutdown report once this runtime stopped (at once after that), without starting a stop as {@link
     * #shutdown()} does: for observers such as metrics and health checks.
     */
    public Mono<ShutdownReport> terminated() {
        return termination.asMono();
    }

    // ------------------------------------------------------------------ start

    /**
     * Prepares every component in order, then starts each in order. Cold: runs on subscription, once.
     *
     * @return errors with {@link IllegalStateException} naming the state when started twice; with the failure (cleanup
     *     failures suppressed) when a component fails to prepare or start
     */
    public Mono<Void> start() {
        return Mono.defer(() -> {
            synchronized (lock) {
                if (state != State.NEW) {
                    return Mono.error(new IllegalStateException(
                            "LanesRuntime can only be started once; current state: " + state));
                }
                state = State.STARTING;
            }
            return Flux.fromIterable(slots)
                    .concatMap(slot -> checkpoint().then(Mono.defer(() -> {
                        slot.entered = true;
                        return slot.component.prepare(admission);
                    })))
                    .then(Mono.<Void>fromRunnable(this::startAll))
                    .then(Mono.<Void>fromRunnable(this::markRunning))
                    .onErrorResume(this::rollback);
        });
    }

    private void startAll() {
        for (Slot slot : slots) {
            requireStartupGoesOn();
            slot.component.start();
        }
    }

    private Mono<Void> checkpoint() {
        return Mono.fromRunnable(this::requireStartupGoesOn);
    }

    /** Throws when a stop, a force or a failure came during startup; no blocking, so any thread may start. */
    private void requireStartupGoesOn() {
        synchronized (lock) {
            if (stopRequested || forced || failures.primary() != null) {
                throw new IllegalStateException(
                        "LanesRuntime startup was cancelled by shutdown; current state: " + state);
            }
        }
    }

    private void markRunning() {
        synchronized (lock) {
            if (state == State.STARTING && !stopRequested && !forced && failures.primary() == null) {
                state = State.RUNNING;
                log.info("Lanes runtime started {} component(s)", slots.size());
                return;
            }
        }
        throw new IllegalStateException("LanesRuntime startup was cancelled by shutdown");
    }

    private Mono<Void> rollback(Throwable error) {
        failures.record(error);
        synchronized (lock) {
            if (state == State.STARTING) {
                state = State.STOPPING;
                shutdownStartedAt = System.nanoTime();
            }
        }
        admission.closeNow();
        List<Slot> entered = slots.stream().filter(slot -> slot.entered).toList();
        entered.forEach(slot -> slot.component.quiesce());
        return stopInReverse(entered)
                .then(Mono.fromRunnable(() -> {
                    if (entered.stream().anyMatch(slot -> slot.outcome == ComponentReport.Outcome.FAILED)) {
                        forceAll();
                    }
                    finish();
                }))
                .then(Mono.<Void>error(() -> Objects.requireNonNull(failures.primary())));
    }

    // ------------------------------------------------------------------ stop

    /**
     * Starts the graceful shutdown if it has not begun and returns the shared report, emitted when the shutdown ended
     * (gracefully, forced, or failed). Cancelling the returned {@code Mono} does not cancel the shutdown.
     */
    public Mono<ShutdownReport> shutdown() {
        return Mono.defer(() -> {
            beginShutdown(false);
            return termination.asMono();
        });
    }

    /** {@link #shutdown()}, completing empty when it was graceful and erroring with its primary failure otherwise. */
    @Override
    public Mono<Void> stopGracefully() {
        return shutdown().flatMap(report -> report.failure() == null ? Mono.empty() : Mono.error(report.failure()));
    }

    /** Stops gracefully, waiting up to the shutdown timeout plus a second. */
    @Override
    public void stop() {
        stop(shutdownTimeout.plusSeconds(1));
    }

    /**
     * Forces every component in reverse order at once: admission closes, in-flight work is cancelled or handed back.
     * Returns without waiting for open leases. Idempotent.
     */
    public void forceStop() {
        force(null);
    }

    /** Stops this runtime gracefully when the JVM shuts down; returns this runtime. */
    public LanesRuntime registerShutdownHook() {
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "lanes-runtime-shutdown-hook"));
        return this;
    }

    private void beginShutdown(boolean fatal) {
        synchronized (lock) {
            switch (state) {
                case NEW -> {
                    state = State.STOPPED;
                    termination.tryEmitValue(report(false));
                    return;
                }
                case STARTING -> {
                    stopRequested = true;
                    shutdownStartedAt = System.nanoTime();
                    scheduleDeadline();
                    return;
                }
                case RUNNING -> {
                    state = State.STOPPING;
                    shutdownStartedAt = System.nanoTime();
                    scheduleDeadline();
                }
                default -> {
                    if (fatal) {
                        admission.closeNow();
                    }
                    return;
                }
            }
            pipeline = gracefulPipeline(fatal).subscribe(unused -> {}, this::componentFailed);
        }
    }

    private Mono<Void> gracefulPipeline(boolean fatal) {
        return Mono.fromRunnable(fatal ? admission::closeNow : admission::beginQuiescing)
                .then(admission.closed())
                .then(Mono.fromRunnable(() -> {
                    admissionClosedAt = System.nanoTime();
                    slots.forEach(slot -> {
                        if (!isForced()) {
                            slot.component.quiesce();
                        }
                    });
                }))
                .then(admission.drained())
                .then(Mono.fromRunnable(() -> drainedAt = System.nanoTime()))
                .then(Mono.defer(() -> stopInReverse(slots)))
                .then(Mono.fromRunnable(() -> {
                    if (slots.stream().anyMatch(slot -> slot.outcome == ComponentReport.Outcome.FAILED)) {
                        forceAll();
                    }
                    finish();
                }));
    }

    private Mono<Void> stopInReverse(List<Slot> targets) {
        List<Slot> reversed = new ArrayList<>(targets);
        Collections.reverse(reversed);
        return Flux.fromIterable(reversed)
                .concatMap(slot -> {
                    if (isForced()) {
                        return Mono.empty();
                    }
                    long started = System.nanoTime();
                    return slot.component
                            .stopGracefully()
                            .doOnSuccess(unused -> slot.stopped(ComponentReport.Outcome.DRAINED, started, null))
                            .onErrorResume(error -> {
                                if (failures.isKnown(error)) {
                                    // it stopped, reporting the fault that is already why we stop: not a new failure
                                    slot.stopped(ComponentReport.Outcome.DRAINED, started, error);
                                } else {
                                    slot.stopped(ComponentReport.Outcome.FAILED, started, error);
                                    failures.record(error);
                                }
                                return Mono.empty();
                            });
                })
                .then();
    }

    private void scheduleDeadline() {
        try {
            deadline = timer.schedule(
                    () -> force(new TimeoutException("LanesRuntime shutdown timed out after " + shutdownTimeout)),
                    shutdownTimeout.toNanos(),
                    TimeUnit.NANOSECONDS);
        } catch (RuntimeException rejected) {
            force(rejected);
        }
    }

    private void force(@Nullable Throwable cause) {
        Disposable graceful;
        synchronized (lock) {
            if (state == State.STOPPED || forced) {
                admission.closeNow();
                return;
            }
            forced = true;
            if (cause != null) {
                failures.record(cause);
            }
            if (state == State.NEW || state == State.RUNNING) {
                shutdownStartedAt = System.nanoTime();
            }
            if (state != State.STARTING) {
                state = State.STOPPING;
            }
            graceful = pipeline;
        }
        openAtForce = admission.open();
        admission.closeNow();
        if (graceful != null) {
            graceful.dispose();
        }
        forceAll();
        finish();
    }

    private void forceAll() {
        List<Slot> reversed = new ArrayList<>(slots);
        Collections.reverse(reversed);
        for (Slot slot : reversed) {
            try {
                slot.component.forceStop();
            } catch (RuntimeException error) {
                failures.record(error);
                slot.failure = slot.failure == null ? error : slot.failure;
            }
            if (slot.outcome != ComponentReport.Outcome.DRAINED && slot.outcome != ComponentReport.Outcome.FAILED) {
                slot.outcome = slot.entered ? ComponentReport.Outcome.FORCED : ComponentReport.Outcome.NOT_STARTED;
            }
        }
    }

    private void finish() {
        ShutdownReport report;
        synchronized (lock) {
            if (state == State.STOPPED) {
                return;
            }
            state = State.STOPPED;
            if (deadline != null) {
                deadline.dispose();
            }
            report = report(forced || slots.stream().anyMatch(s -> s.outcome == ComponentReport.Outcome.FORCED));
        }
        log.info("{}", report);
        termination.tryEmitValue(report);
    }

    private ShutdownReport report(boolean wasForced) {
        long end = System.nanoTime();
        long start = shutdownStartedAt == 0 ? end : shutdownStartedAt;
        long closed = admissionClosedAt == 0 ? end : admissionClosedAt;
        long drained = drainedAt == 0 ? end : drainedAt;
        List<ComponentReport> components = slots.stream()
                .map(slot -> new ComponentReport(
                        slot.component.name(), slot.outcome, Duration.ofNanos(slot.stopNanos), slot.failure))
                .toList();
        return new ShutdownReport(
                wasForced,
                Duration.ofNanos(end - start),
                shutdownTimeout,
                Duration.ofNanos(Math.max(0, closed - start)),
                Duration.ofNanos(Math.max(0, drained - closed)),
                admission.acquiredInTotal(),
                admission.openAtClose(),
                openAtForce,
                components,
                failures.seal());
    }

    private boolean isForced() {
        synchronized (lock) {
            return forced;
        }
    }

    /** A component's fatal fault: record it and shut down without waiting for a quiet period. */
    private void componentFailed(Throwable failure) {
        failures.record(failure);
        log.error("Lanes runtime component failure; shutting down", failure);
        boolean running;
        synchronized (lock) {
            running = state == State.RUNNING || state == State.STOPPING;
        }
        if (running) {
            beginShutdown(true);
        }
    }

    @Override
    public String toString() {
        return "LanesRuntime[" + state() + ", " + slots.size() + " component(s)]";
    }

    /** One registered component and what happened to it. */
    private static final class Slot {
        final RuntimeComponent component;
        volatile boolean entered;
        volatile ComponentReport.Outcome outcome = ComponentReport.Outcome.NOT_STARTED;
        volatile long stopNanos;
        volatile @Nullable Throwable failure;

        Slot(RuntimeComponent component) {
            this.component = component;
        }

        void stopped(ComponentReport.Outcome result, long startedAt, @Nullable Throwable error) {
            outcome = result;
            stopNanos = System.nanoTime() - startedAt;
            failure = error;
        }
    }
}
