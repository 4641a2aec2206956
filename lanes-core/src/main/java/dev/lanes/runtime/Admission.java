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
 * <p>Concurrency: an acquire increments the count before it checks {@code closed}, and close sets {@code closed} before
 * it checks the count, so a lease is either admitted and counted, or refused.
 */
final class Admission implements RuntimeContext {
    private final AtomicLong active = new AtomicLong();
    private final AtomicLong acquired = new AtomicLong();
    private final Duration quietPeriod;
    private final Scheduler timer;
    private final Consumer<Throwable> failures;
    private final Sinks.Empty<Void> closedSignal = Sinks.empty();
    private final Sinks.Empty<Void> drainedSignal = Sinks.empty();
    private final Queue<Runnable> stoppingActions = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private volatile boolean quiescing;
    private volatile boolean closed;
    private volatile long openAtClose = -1;

    Admission(Duration quietPeriod, Scheduler timer, Consumer<Throwable> failures) {
        this.quietPeriod = quietPeriod;
        this.timer = timer;
        this.failures = failures;
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
        long seen = acquired.get();
        try {
            timer.schedule(
                    () -> {
                        if (active.get() == 0 && acquired.get() == seen) {
                            closeNow();
                        }
                    },
                    quietPeriod.toNanos(),
                    TimeUnit.NANOSECONDS);
        } catch (RuntimeException rejected) {
            failures.accept(rejected);
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
