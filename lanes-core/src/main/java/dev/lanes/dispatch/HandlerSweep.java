package dev.lanes.dispatch;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * The handler-timeout check of one dispatcher: one periodic task on the dispatcher's scheduler (so a {@code
 * VirtualTimeScheduler} drives it in tests) that looks at the attempt each lane is running, instead of a timer per
 * message.
 *
 * <p><b>Time</b> is counted in sweeps, not read from a clock: an attempt records the sweep count when it goes
 * asynchronous ({@link #startTick()}, one volatile read), and a later sweep {@code T} knows that the attempt has run for
 * more than {@code (T - start - 1)} sweep periods, since each sweep schedules the next one a full period after it began.
 * So the warning and the timeout never come early, and at most two periods late (later only while the scheduler's
 * workers are all busy).
 *
 * <p><b>Threads.</b> Sweeps run one at a time (each schedules the next at its end), on whichever worker the scheduler
 * gives; {@link #startTick()} is called by lane owners on any thread. The sweep starts with the first asynchronous
 * attempt, so a dispatcher whose handlers all end at once never schedules it, and runs until {@link #stop()}: after
 * that no sweep starts and the pending one is disposed.
 */
final class HandlerSweep<M> implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(HandlerSweep.class);

    /** What the sweep reports to its dispatcher. */
    interface Target<M> {
        /** Whether lanes may still be running handlers (false once stopped): a false ends the sweep. */
        boolean sweeping();

        /** The attempt has run for more than {@code ranFor}, past the warning threshold; called once per attempt. */
        void warn(HandlerSubscriber<M> attempt, Duration ranFor);

        /** The attempt has run past its timeout; called on every sweep until the attempt ends. */
        void timeOut(HandlerSubscriber<M> attempt);
    }

    private final LaneRegistry<M> lanes;
    private final Target<M> target;
    private final String owner;
    private final long periodNanos;
    private final long warnTicks;
    private final long timeoutTicks;
    private final AtomicBoolean started = new AtomicBoolean();
    /** Sweeps begun, published for {@link #startTick()}; written by the running sweep only. */
    private volatile long tick;

    private volatile @Nullable Scheduler scheduler;
    private volatile @Nullable Disposable next;
    private volatile boolean stopped;

    HandlerSweep(LaneRegistry<M> lanes, HandlerTimeout limits, Target<M> target, String owner) {
        this.lanes = lanes;
        this.target = target;
        this.owner = owner;
        this.periodNanos = limits.sweepPeriod().toNanos();
        this.warnTicks = ceilDiv(limits.warningThreshold().toNanos(), periodNanos);
        this.timeoutTicks = ceilDiv(limits.timeout().toNanos(), periodNanos);
    }

    private static long ceilDiv(long dividend, long divisor) {
        return -Math.floorDiv(-dividend, divisor);
    }

    /** The scheduler the sweep runs on; set once, before any attempt runs. */
    void bind(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** Lane owner, as an attempt goes asynchronous: starts the sweep if need be, and returns the sweep count now. */
    long startTick() {
        if (!started.get() && started.compareAndSet(false, true)) {
            schedule();
        }
        return tick;
    }

    /** No sweep runs after this returns, except one already running; idempotent. */
    void stop() {
        stopped = true;
        Disposable pending = next;
        if (pending != null) {
            pending.dispose();
        }
    }

    @Override
    public void run() {
        if (stopped || !target.sweeping()) {
            return;
        }
        long now = tick + 1; // only the running sweep writes it
        tick = now;
        lanes.forEach(lane -> check(lane, now));
        schedule();
    }

    private void check(Lane<M> lane, long now) {
        if (!(lane.oldest() instanceof Envelope<?> current)) {
            return;
        }
        @SuppressWarnings("unchecked")
        HandlerSubscriber<M> attempt = (HandlerSubscriber<M>) current.running;
        if (attempt == null || !current.exchange.handlerTimed()) {
            return;
        }
        long ran = now - attempt.startTick - 1; // whole periods the attempt has surely run
        try {
            if (ran >= warnTicks && !attempt.warned) {
                attempt.warned = true;
                target.warn(attempt, Duration.ofNanos(ran * periodNanos));
            }
            if (ran >= timeoutTicks) {
                target.timeOut(attempt);
            }
        } catch (RuntimeException unexpected) {
            log.error("{} handler-timeout sweep failed on a lane; it goes on with the others", owner, unexpected);
        }
    }

    private void schedule() {
        Scheduler on = scheduler;
        if (on == null || stopped) {
            return;
        }
        try {
            next = on.schedule(this, periodNanos, TimeUnit.NANOSECONDS);
        } catch (RuntimeException refused) { // a user's scheduler may throw what it likes: it refuses too
            log.warn(
                    "{} scheduler refused its handler-timeout sweep; handlers are no longer timed: {}", owner, refused);
            return;
        }
        if (stopped) {
            stop();
        }
    }
}
