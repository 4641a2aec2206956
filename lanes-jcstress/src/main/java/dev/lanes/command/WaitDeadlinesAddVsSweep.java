package dev.lanes.command;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.messaging.CommandMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * A wait joins while the sweep for an earlier deadline runs ({@link WaitDeadlines}).
 *
 * <p>Before the race wait A (deadline 100 ns) is in flight, its sweep scheduled for 100, and the timer's clock reads
 * 100. The sender actor puts wait B (deadline 150) in the waits and calls {@link WaitDeadlines#added}; the timer actor
 * runs the scheduled sweep. Then the arbiter moves the clock to 1 s and runs the sweep scheduled by then, if any.
 *
 * <p>r1: 1 if A timed out (by the timer actor's sweep). r2: 1 if B timed out (by the arbiter's sweep, or by none: 0).
 */
@JCStressTest
@Description("a wait added while a sweep runs is seen by that sweep or arms one of its own: no wait is left untimed")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "A timed out at 100, B later: the sweep saw B, or B armed its own")
@Outcome(id = ".*, 0", expect = FORBIDDEN, desc = "B was never timed out: its wait would last forever")
@Outcome(expect = FORBIDDEN, desc = "A was not timed out at its deadline")
@State
public class WaitDeadlinesAddVsSweep {
    private static final NamedAggregate ORDER = NamedAggregate.of("stress", "order");

    private final ManualTimer timer = new ManualTimer();
    private final ConcurrentHashMap<String, TrackedCommand> waits = new ConcurrentHashMap<>();
    private final List<String> timedOut = new ArrayList<>();
    private final WaitDeadlines deadlines = new WaitDeadlines(timer, waits.values(), this::timedOut);
    private final TrackedCommand a = wait("a", 100);
    private final TrackedCommand b = wait("b", 150);
    private final Runnable sweepForA;

    public WaitDeadlinesAddVsSweep() {
        timer.now = 0;
        waits.put("a", a);
        deadlines.added(a.deadline);
        sweepForA = timer.take();
        timer.now = 100;
    }

    private static TrackedCommand wait(String id, long deadline) {
        return new TrackedCommand(
                CommandMessage.of(AggregateId.of(ORDER, id), "Place", id), WaitStage.PROCESSED, deadline);
    }

    private void timedOut(TrackedCommand wait) {
        if (waits.remove(wait.command.requestId(), wait)) {
            synchronized (timedOut) {
                timedOut.add(wait.command.requestId());
            }
        }
    }

    @Actor
    public void sender() {
        waits.put("b", b);
        deadlines.added(b.deadline);
    }

    @Actor
    public void timerThread() {
        sweepForA.run();
    }

    @Arbiter
    public void arbiter(II_Result r) {
        timer.now = TimeUnit.SECONDS.toNanos(1);
        Runnable pending = timer.take();
        if (pending != null) {
            pending.run();
        }
        synchronized (timedOut) {
            r.r1 = timedOut.contains("a") ? 1 : 0;
            r.r2 = timedOut.contains("b") ? 1 : 0;
        }
    }

    /** A timer that runs nothing by itself: the test takes the latest task scheduled and not cancelled. */
    private static final class ManualTimer implements Scheduler {
        volatile long now;
        private @Nullable Task latest;

        synchronized @Nullable Runnable take() {
            Task task = latest;
            latest = null;
            return task == null || task.cancelled ? null : task.runnable;
        }

        @Override
        public synchronized Disposable schedule(Runnable runnable, long delay, TimeUnit unit) {
            latest = new Task(runnable);
            return latest;
        }

        @Override
        public Disposable schedule(Runnable task) {
            return schedule(task, 0, TimeUnit.NANOSECONDS);
        }

        @Override
        public long now(TimeUnit unit) {
            return unit.convert(now, TimeUnit.NANOSECONDS);
        }

        @Override
        public Worker createWorker() {
            throw new UnsupportedOperationException("the sweep schedules on the scheduler itself");
        }

        private static final class Task implements Disposable {
            final Runnable runnable;
            volatile boolean cancelled;

            Task(Runnable runnable) {
                this.runnable = runnable;
            }

            @Override
            public void dispose() {
                cancelled = true;
            }

            @Override
            public boolean isDisposed() {
                return cancelled;
            }
        }
    }
}
