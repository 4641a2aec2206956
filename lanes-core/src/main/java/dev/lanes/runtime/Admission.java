package dev.lanes.runtime;

import dev.lanes.lifecycle.ActivityLease;
import dev.lanes.lifecycle.RuntimeContext;
import java.time.Duration;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

/**
 * The runtime's admission of work: open leases, the quiet period and the drained signal.
 *
 * <p>While running, every {@link #tryAcquire()} succeeds. Once shutdown begins ({@link #beginQuiescing()}), admission
 * stays open until no lease has been open for a whole quiet period: tail work created meanwhile (a saga's command) is
 * still admitted, and any new lease restarts the wait. {@link #closeNow()} closes at once (fatal failure, force).
 * After close, {@link #drained()} completes when the last open lease closes. The {@link #whenStopping} actions run
 * once, when quiescing begins or admission closes, whichever comes first.
 *
 * <p><b>Unleased work.</b> A component may hold work that has no lease yet (an exchange delivered to a dispatcher and
 * queued for its drain). The quiet period ends only when, after a whole period without open leases, no component holds
 * any ({@code unleasedWork}, asked after the lease count and before the acquired count, so work that got its lease in
 * between is seen by the latter); while one does, the check runs again after {@link #UNLEASED_RECHECK} or the quiet
 * period, whichever is longer.
 *
 * <p>Concurrency: an acquire increments the count before it checks {@code closed}, and close sets {@code closed} before
 * it checks the count, so a lease is either admitted and counted, or refused.
 */
final class Admission implements RuntimeContext {
    /** How soon the quiet check looks again when a component still held unleased work. */
    static final Duration UNLEASED_RECHECK = Duration.ofMillis(1);

    private final AtomicLong active = new AtomicLong();
    private final AtomicLong acquired = new AtomicLong();
    private final Duration quietPeriod;
    private final Scheduler timer;
    private final Consumer<Throwable> failures;
    private final BooleanSupplier unleasedWork;
    /** The longer of the quiet period and {@link #UNLEASED_RECHECK}. */
    private final Duration unleasedRecheck;

    private final Sinks.Empty<Void> closedSignal = Sinks.empty();
    private final Sinks.Empty<Void> drainedSignal = Sinks.empty();
    private final Queue<Runnable> stoppingActions = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private volatile boolean quiescing;
    private volatile boolean closed;
    private volatile long openAtClose = -1;

    /**
     * @param unleasedWork whether a component holds work without a lease yet; asked on the timer, must not throw
     */
    Admission(Duration quietPeriod, Scheduler timer, Consumer<Throwable> failures, BooleanSupplier unleasedWork) {
        this.quietPeriod = quietPeriod;
        this.timer = timer;
        this.failures = failures;
        this.unleasedWork = unleasedWork;
        this.unleasedRecheck = UNLEASED_RECHECK.compareTo(quietPeriod) > 0 ? UNLEASED_RECHECK : quietPeriod;
    }

    @Override
    public @Nullable ActivityLease tryAcquire() {
        if (closed) {
            return null;
        }
        active.incrementAndGet();
        if (closed) {
            release();
            return null;
        }
        acquired.incrementAndGet();
        return new Lease();
    }

    @Override
    public void reportFailure(Throwable failure) {
        failures.accept(failure);
    }

    @Override
    public void whenStopping(Runnable action) {
        stoppingActions.add(Objects.requireNonNull(action, "action"));
        if (stopping.get()) {
            runStoppingActions();
        }
    }

    private void stopping() {
        if (stopping.compareAndSet(false, true)) {
            runStoppingActions();
        }
    }

    /** Each action once, whichever thread polls it; a failing action is reported, the others still run. */
    private void runStoppingActions() {
        for (Runnable action = stoppingActions.poll(); action != null; action = stoppingActions.poll()) {
            try {
                action.run();
            } catch (RuntimeException failed) {
                failures.accept(failed);
            }
        }
    }

    /** Shutdown began: close admission after a quiet period without open leases. */
    void beginQuiescing() {
        stopping();
        quiescing = true;
        if (active.get() == 0) {
            scheduleQuietCheck();
        }
    }

    void closeNow() {
        stopping();
        if (closed) {
            return;
        }
        closed = true;
        openAtClose = active.get();
        closedSignal.tryEmitEmpty();
        if (active.get() == 0) {
            drainedSignal.tryEmitEmpty();
        }
    }

    Mono<Void> closed() {
        return closedSignal.asMono();
    }

    Mono<Void> drained() {
        return drainedSignal.asMono();
    }

    long open() {
        return active.get();
    }

    long acquiredInTotal() {
        return acquired.get();
    }

    /** Leases open when admission closed, or -1 if it has not closed. */
    long openAtClose() {
        return openAtClose;
    }

    private void release() {
        if (active.decrementAndGet() != 0) {
            return;
        }
        if (closed) {
            drainedSignal.tryEmitEmpty();
        } else if (quiescing) {
            scheduleQuietCheck();
        }
    }

    private void scheduleQuietCheck() {
        scheduleQuietCheck(acquired.get(), quietPeriod);
    }

    private void scheduleQuietCheck(long seen, Duration after) {
        try {
            timer.schedule(() -> quietCheck(seen), after.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RuntimeException rejected) {
            failures.accept(rejected);
            closeNow();
        }
    }

    /** Closes if no lease was open or acquired since {@code seen} and no component holds unleased work. */
    private void quietCheck(long seen) {
        if (closed || active.get() != 0) {
            return; // the last lease to close schedules the next check
        }
        boolean waiting = unleasedWork.getAsBoolean();
        if (acquired.get() != seen) {
            return; // a lease came and went meanwhile: its release scheduled a check of its own
        }
        if (waiting) {
            scheduleQuietCheck(seen, unleasedRecheck);
        } else {
            closeNow();
        }
    }

    /** Closed once: true once closed (one object per lease, on the hot path: the flag is the lease itself). */
    @SuppressWarnings("serial") // never serialized
    private final class Lease extends AtomicBoolean implements ActivityLease {
        @Override
        public void close() {
            if (compareAndSet(false, true)) {
                release();
            }
        }
    }
}
