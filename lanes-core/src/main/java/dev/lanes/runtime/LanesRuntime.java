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
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
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
 * stopped in reverse order (forced if that fails), and the start errors with the failure. A stop requested during the
 * startup cancels it at its next step the same way, under the shutdown deadline counted from the request.
 *
 * <p><b>Stop</b> ({@link #shutdown()}): under one deadline, tell the components that the stop began ({@link
 * RuntimeContext#whenStopping}: they stop taking new work from outside), wait until no activity lease has been open
 * for the quiet period (tail work, such as a saga's command, is still admitted meanwhile), close admission, quiesce
 * components in order, wait until every admitted lease closed, stop components in reverse order. When the deadline
 * wins, every component is forced in reverse order and the report says so. Concurrent callers share one shutdown;
 * cancelling an observer does not cancel it.
 *
 * <p><b>Failures</b>: a component's fatal fault ({@link RuntimeContext#reportFailure}) while running starts the same
 * shutdown without the quiet period; it ends with that error, later ones suppressed. During the startup it cancels the
 * startup, which rolls back and errors with it.
 *
 * <p><b>Force</b> ({@link #forceStop()}, the deadline, or a component that failed to stop): happens once, whoever asks;
 * it cuts the graceful path and forces every component in reverse order.
 *
 * <p><b>Time</b>: the quiet period and the deadline run on the timer, and every duration the {@link ShutdownReport}
 * gives is read from the same timer's clock ({@code timer.now(NANOSECONDS)}), so a {@code VirtualTimeScheduler} drives
 * both in tests.
 *
 * <p>Thread-safety: the lifecycle is one immutable state object in one volatile field, moved only by
 * compare-and-set; each transition is won by one caller, which then performs its effects (start the pipeline, force,
 * publish the report). No lock is held while components are called.
 */
public final class LanesRuntime implements GracefullyStoppable {
    private static final Logger log = LoggerFactory.getLogger(LanesRuntime.class);
    private static final AtomicReferenceFieldUpdater<LanesRuntime, RuntimeState> STATE =
            AtomicReferenceFieldUpdater.newUpdater(LanesRuntime.class, RuntimeState.class, "state");

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
    private final Scheduler timer;
    private final Admission admission;
    private final Failures failures = new Failures();
    private final Sinks.One<ShutdownReport> termination = Sinks.one();
    private volatile RuntimeState state = RuntimeState.INITIAL;
    private final Disposable.Swap deadline = Disposables.swap();
    private final Disposable.Swap pipeline = Disposables.swap();

    /**
     * A runtime whose quiet period and deadline run on Reactor's parallel scheduler, and whose durations come from that
     * scheduler's monotonic nanosecond clock ({@code Schedulers.parallel().now(NANOSECONDS)}).
     */
    public LanesRuntime(List<? extends RuntimeComponent> components, Duration shutdownTimeout, Duration quietPeriod) {
        this(components, shutdownTimeout, quietPeriod, Schedulers.parallel());
    }

    /**
     * @param timer where the quiet period and the deadline are timed, and the runtime's one clock: every duration the
     *     {@link ShutdownReport} gives is read from {@code timer.now(NANOSECONDS)} (a {@code VirtualTimeScheduler} in
     *     tests drives both)
     * @throws IllegalArgumentException naming the value if {@code shutdownTimeout <= 0}, {@code quietPeriod} is not
     *     within {@code [0, shutdownTimeout)}, or a component is registered twice
     */
    public LanesRuntime(
            List<? extends RuntimeComponent> components,
            Duration shutdownTimeout,
            Duration quietPeriod,
            Scheduler timer) {
        this.shutdownTimeout = Require.positive(shutdownTimeout, "shutdownTimeout");
        Require.notNegative(quietPeriod, "quietPeriod");
        if (quietPeriod.compareTo(shutdownTimeout) >= 0) {
            throw new IllegalArgumentException(
                    "quietPeriod must be shorter than shutdownTimeout: " + quietPeriod + " >= " + shutdownTimeout);
        }
        this.timer = Objects.requireNonNull(timer, "timer");
        this.slots = slots(Objects.requireNonNull(components, "components"));
        this.admission = new Admission(quietPeriod, timer, this::componentFailed, this::anyHoldsUnleasedWork);
    }

    /** Whether a component took work that holds no lease yet (the quiet period waits for it). Never throws. */
    private boolean anyHoldsUnleasedWork() {
        for (Slot slot : slots) {
            try {
                if (slot.component.holdsUnleasedWork()) {
                    return true;
                }
            } catch (RuntimeException failed) {
                log.warn(
                        "{}: {} could not say whether it holds unleased work; not waiting for it",
                        this,
                        slot.component.name(),
                        failed);
            }
        }
        return false;
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
        return state.phase();
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
     * @return errors with {@link IllegalStateException} naming the state when started twice or after a stop; with the
     *     failure (cleanup failures suppressed) when a component fails to prepare or start; with an {@link
     *     IllegalStateException} when a stop or a force cancelled the startup
     */
    public Mono<Void> start() {
        return Mono.defer(() -> {
            try {
                move(RuntimeState::starting);
            } catch (IllegalStateException startedBefore) {
                return Mono.error(startedBefore);
            }
            return Flux.range(0, slots.size())
                    .concatMap(this::prepare)
                    .then(Mono.<Void>fromRunnable(this::startAll))
                    .then(Mono.<Void>fromRunnable(this::markRunning))
                    .onErrorResume(this::rollback);
        });
    }

    private Mono<Void> prepare(int index) {
        return Mono.defer(() -> {
            if (move(current -> current.entering(index)) == null) {
                return Mono.error(startupCancelled());
            }
            return slots.get(index).component.prepare(admission);
        });
    }

    private void startAll() {
        for (Slot slot : slots) {
            if (!state.startupGoesOn()) {
                throw startupCancelled();
            }
            slot.component.start();
        }
    }

    private void markRunning() {
        if (move(RuntimeState::running) == null) {
            throw startupCancelled();
        }
        log.info("Lanes runtime started {} component(s)", slots.size());
    }

    private IllegalStateException startupCancelled() {
        return new StartupCancelledException(state);
    }

    private Mono<Void> rollback(Throwable error) {
        if (!(error instanceof StartupCancelledException)) {
            failures.record(error);
        }
        Moved rolling = move(current -> current.rollingBack(now()));
        if (rolling == null) {
            // a force took over the startup and stops everything itself
            return Mono.error(startFailure(error));
        }
        if (rolling.from().stopBeganAt() == null) {
            scheduleDeadline(rolling.to());
        }
        admission.closeNow();
        List<Slot> entered = slots.subList(0, rolling.to().entered());
        entered.forEach(slot -> {
            if (!isForced()) {
                slot.component.quiesce();
            }
        });
        return stopInReverse(entered)
                .then(Mono.fromRunnable(this::finishGracefully))
                .takeUntilOther(termination.asMono()) // a force (the deadline) ended it
                .then(Mono.error(() -> startFailure(error)));
    }

    /** The primary failure, or {@code error} itself when nothing failed (a stop cancelled the startup). */
    private Throwable startFailure(Throwable error) {
        Throwable primary = failures.primary();
        return primary == null ? error : primary;
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
     * Returns without waiting for open leases, nor for a force already under way. Idempotent.
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
        Moved begun = move(current -> current.stopRequested(now()));
        if (begun == null) {
            if (fatal) {
                admission.closeNow();
            }
            return;
        }
        RuntimeState next = begun.to();
        switch (next.phase()) {
            case STOPPED -> {
                admission.closeNow();
                publish(next);
            }
            case STARTING -> scheduleDeadline(next);
            default -> {
                scheduleDeadline(next);
                pipeline.update(gracefulPipeline(fatal).subscribe(unused -> {}, this::componentFailed));
            }
        }
    }

    private Mono<Void> gracefulPipeline(boolean fatal) {
        return Mono.fromRunnable(fatal ? admission::closeNow : admission::beginQuiescing)
                .then(admission.closed())
                .then(Mono.fromRunnable(this::quiesceAll))
                .then(admission.drained())
                .then(Mono.fromRunnable(() -> move(current -> current.drained(now()))))
                .then(Mono.defer(() -> stopInReverse(slots)))
                .then(Mono.fromRunnable(this::finishGracefully));
    }

    private void quiesceAll() {
        if (move(current -> current.admissionClosed(now())) == null) {
            return;
        }
        slots.forEach(slot -> {
            if (!isForced()) {
                slot.component.quiesce();
            }
        });
    }

    private Mono<Void> stopInReverse(List<Slot> targets) {
        return Flux.fromIterable(reversed(targets))
                .concatMap(slot -> {
                    if (isForced()) {
                        return Mono.empty();
                    }
                    long started = now();
                    return slot.component
                            .stopGracefully()
                            .doOnSuccess(unused -> slot.stopped(ComponentReport.Outcome.DRAINED, now() - started, null))
                            .onErrorResume(error -> {
                                if (failures.isKnown(error)) {
                                    // it stopped, reporting the fault that is already why we stop: not a new failure
                                    slot.stopped(ComponentReport.Outcome.DRAINED, now() - started, error);
                                } else {
                                    // recorded first: a report that lists the component FAILED carries the failure
                                    failures.record(error);
                                    slot.stopped(ComponentReport.Outcome.FAILED, now() - started, error);
                                }
                                return Mono.empty();
                            });
                })
                .then();
    }

    /** The graceful path's end: stopped, or forced when a component failed to stop. */
    private void finishGracefully() {
        if (slots.stream().anyMatch(Slot::failed)) {
            force(null);
        } else {
            finish(false);
        }
    }

    /** Schedules the force at the deadline, counted on the clock from the stop request. */
    private void scheduleDeadline(RuntimeState begun) {
        long began = Objects.requireNonNull(begun.stopBeganAt(), "stopBeganAt");
        long remaining = Math.max(0, began + shutdownTimeout.toNanos() - now());
        try {
            deadline.update(timer.schedule(this::deadlineReached, remaining, TimeUnit.NANOSECONDS));
        } catch (RuntimeException rejected) {
            force(rejected);
        }
    }

    private void deadlineReached() {
        force(new TimeoutException("LanesRuntime shutdown timed out after " + shutdownTimeout));
    }

    /** The one force: whoever wins the transition cuts the graceful path and forces every component, once. */
    private void force(@Nullable Throwable cause) {
        Moved forcing = move(current -> current.forcing(now(), admission.open()));
        admission.closeNow();
        if (forcing == null) {
            return;
        }
        if (cause != null) {
            failures.record(cause);
        }
        pipeline.dispose();
        forceAll(forcing.to().entered());
        finish(true);
    }

    private void forceAll(int entered) {
        for (int index = slots.size() - 1; index >= 0; index--) {
            Slot slot = slots.get(index);
            try {
                slot.component.forceStop();
                slot.forced(index < entered, null);
            } catch (RuntimeException error) {
                failures.record(error);
                slot.forced(index < entered, error);
            }
        }
    }

    private void finish(boolean byForce) {
        Moved stopped = move(current -> current.stopped(now(), byForce));
        if (stopped != null) {
            publish(stopped.to());
        }
    }

    private void publish(RuntimeState end) {
        deadline.dispose();
        ShutdownReport report = report(end);
        log.info("{}", report);
        termination.tryEmitValue(report);
    }

    private ShutdownReport report(RuntimeState end) {
        return new ShutdownReport(
                end.forced(),
                end.duration(),
                shutdownTimeout,
                end.quietWait(),
                end.drainWait(),
                admission.acquiredInTotal(),
                admission.openAtClose(),
                end.cut(),
                slots.stream().map(Slot::report).toList(),
                failures.seal());
    }

    private boolean isForced() {
        return state.forced();
    }

    /** A component's fatal fault: record it and shut down without waiting for a quiet period. */
    private void componentFailed(Throwable failure) {
        failures.record(failure);
        log.error("Lanes runtime component failure; shutting down", failure);
        beginShutdown(true);
    }

    /** The runtime's one clock: the timer that also times the quiet period and the deadline. */
    private long now() {
        return timer.now(TimeUnit.NANOSECONDS);
    }

    /** Moves the state by compare-and-set; the move, or {@code null} when the transition does not apply. */
    private @Nullable Moved move(Transition transition) {
        while (true) {
            RuntimeState from = state;
            RuntimeState to = transition.apply(from);
            if (to == null) {
                return null;
            }
            if (STATE.compareAndSet(this, from, to)) {
                return new Moved(from, to);
            }
        }
    }

    private static List<Slot> reversed(List<Slot> slots) {
        List<Slot> reversed = new ArrayList<>(slots);
        Collections.reverse(reversed);
        return reversed;
    }

    @Override
    public String toString() {
        return "LanesRuntime[" + state.describe() + ", " + slots.size() + " component(s)]";
    }

    /** One step of the lifecycle: the next state, or {@code null} when it does not apply to {@code from}. */
    @FunctionalInterface
    private interface Transition {
        @Nullable
        RuntimeState apply(RuntimeState from);
    }

    /** A transition that took place. */
    private record Moved(RuntimeState from, RuntimeState to) {}

    /** The startup gave way to a stop or a force: not a failure of its own. */
    private static final class StartupCancelledException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        StartupCancelledException(RuntimeState state) {
            super("LanesRuntime startup was cancelled by shutdown; current state: " + state.describe());
        }
    }

    /** One registered component and how it ended, as one immutable report replaced atomically. */
    private static final class Slot {
        private static final AtomicReferenceFieldUpdater<Slot, ComponentReport> REPORT =
                AtomicReferenceFieldUpdater.newUpdater(Slot.class, ComponentReport.class, "report");
        final RuntimeComponent component;
        private volatile ComponentReport report;

        Slot(RuntimeComponent component) {
            this.component = component;
            this.report =
                    new ComponentReport(component.name(), ComponentReport.Outcome.NOT_STARTED, Duration.ZERO, null);
        }

        void stopped(ComponentReport.Outcome outcome, long nanos, @Nullable Throwable error) {
            report = new ComponentReport(component.name(), outcome, Duration.ofNanos(nanos), error);
        }

        /** Forced: FORCED if the startup entered it (NOT_STARTED otherwise), unless it already drained or failed. */
        void forced(boolean entered, @Nullable Throwable error) {
            REPORT.updateAndGet(this, current -> {
                Throwable failure = current.failure() == null ? error : current.failure();
                ComponentReport.Outcome outcome = current.outcome();
                if (outcome != ComponentReport.Outcome.DRAINED && outcome != ComponentReport.Outcome.FAILED) {
                    outcome = entered ? ComponentReport.Outcome.FORCED : ComponentReport.Outcome.NOT_STARTED;
                }
                return new ComponentReport(component.name(), outcome, current.stopDuration(), failure);
            });
        }

        boolean failed() {
            return report.outcome() == ComponentReport.Outcome.FAILED;
        }

        ComponentReport report() {
            return report;
        }
    }
}
