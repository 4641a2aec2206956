package dev.lanes.command;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * Ends the senders' waits at their deadlines with one task on the timer at a time instead of one task per wait, so a
 * wait costs no timer operation when it starts or ends. The task (a sweep) runs at the earliest deadline among the
 * waits, times out every wait whose deadline passed, and schedules itself again at the next earliest; none is
 * scheduled while no wait has a deadline ahead. When deadlines crowd, sweeps run at most every {@link #MIN_GAP_NANOS}:
 * a wait then ends up to that much after its deadline, never before it.
 *
 * <p>Deadlines are read on the timer's clock ({@link Scheduler#now}), as Reactor's own time operators do: virtual time
 * under a {@code VirtualTimeScheduler}; the wall clock on Reactor's schedulers, so a step of the system clock moves
 * deadlines that were already set.
 *
 * <p>A command's deadline ({@link TrackedCommand#deadline}) is the earliest of its senders' deadlines; after its
 * timeout the sweep reads it again, so the later deadline of a sender who joined it is timed too.
 *
 * <p>Thread-safety: {@link #added} from any thread, once the wait is in the collection swept, or its command's deadline
 * is lowered to it (a sweep that begins after it returns sees the wait); sweeps run on the timer, one at a time.
 */
final class WaitDeadlines {
    /** The least time between two sweeps, 10 ms. */
    static final long MIN_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** Longer timeouts wait this long (about 73 years): deadlines are compared by their difference. */
    private static final long LONGEST_NANOS = Long.MAX_VALUE / 4;

    private static final Logger log = LoggerFactory.getLogger(WaitDeadlines.class);

    private final Scheduler timer;
    private final Iterable<TrackedCommand> waits;
    private final Consumer<TrackedCommand> timedOut;
    private final Object lock = new Object();
    /** A sweep is scheduled and has not begun: then it runs at {@link #sweepAt}. Written under {@link #lock}. */
    private volatile boolean armed;

    private volatile long sweepAt;
    /** The scheduled sweep; guarded by {@link #lock}. */
    private @Nullable Disposable sweep;

    /**
     * @param waits the waits in flight, iterated by each sweep (a concurrent collection: waits come and go meanwhile)
     * @param timedOut ends the waits of a command whose deadline passed; called on the timer's thread, must not throw
     */
    WaitDeadlines(Scheduler timer, Iterable<TrackedCommand> waits, Consumer<TrackedCommand> timedOut) {
        this.timer = timer;
        this.waits = waits;
        this.timedOut = timedOut;
    }

    /** The deadline of a wait of {@code timeout} that starts now, on the timer's clock. */
    long deadline(long timeoutNanos) {
        return now() + Math.min(timeoutNanos, LONGEST_NANOS);
    }

    /**
     * A wait with {@code deadline} joined the waits swept: makes sure a sweep runs by then. Costs two volatile reads
     * unless no sweep is scheduled or this deadline is the earliest.
     *
     * @throws RuntimeException the timer's refusal to schedule a sweep (a disposed scheduler)
     */
    void added(long deadline) {
        if (armed && sweepAt - deadline <= 0) {
            return;
        }
        synchronized (lock) {
            if (!armed || deadline - sweepAt < 0) {
                arm(deadline);
            }
        }
    }

    private void arm(long at) {
        if (sweep != null) {
            sweep.dispose();
        }
        sweep = timer.schedule(this::sweep, Math.max(0, at - now()), TimeUnit.NANOSECONDS);
        sweepAt = at;
        armed = true;
    }

    private void sweep() {
        synchronized (lock) {
            armed = false; // from here, a wait added sees no sweep ahead and arms one itself
            sweep = null;
        }
        long now = now();
        boolean ahead = false;
        long next = 0;
        for (TrackedCommand wait : waits) {
            long deadline = wait.deadline;
            if (deadline - now <= 0) {
                timedOut.accept(wait);
                deadline = wait.deadline; // a command's next deadline: that of a sender who joined it
                if (deadline - now <= 0) {
                    continue;
                }
            }
            if (!ahead || deadline - next < 0) {
                next = deadline;
                ahead = true;
            }
        }
        if (!ahead) {
            return;
        }
        long at = next - (now + MIN_GAP_NANOS) < 0 ? now + MIN_GAP_NANOS : next;
        synchronized (lock) {
            if (armed && sweepAt - at <= 0) {
                return; // a wait added meanwhile armed an earlier sweep
            }
            try {
                arm(at);
            } catch (RuntimeException refused) {
                log.warn(
                        "{} cannot schedule its next sweep on {}: waits in flight no longer time out",
                        this,
                        timer,
                        refused);
            }
        }
    }

    private long now() {
        return timer.now(TimeUnit.NANOSECONDS);
    }

    @Override
    public String toString() {
        return "WaitDeadlines[" + (armed ? "next sweep at " + sweepAt + " ns" : "no sweep scheduled") + "]";
    }
}
