package dev.lanes.test.time;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;

/**
 * A scheduler that counts the delayed tasks handed to it and runs everything on another (usually a
 * {@code VirtualTimeScheduler}), so a test can wait until the code under test has scheduled its timer before it moves
 * the clock: moved earlier, the timer would be set from the moved clock and never come due.
 */
public final class CountingScheduler implements Scheduler {
    private final AtomicInteger scheduled = new AtomicInteger();
    private final Scheduler delegate;

    public CountingScheduler(Scheduler delegate) {
        this.delegate = delegate;
    }

    /** How many delayed tasks were scheduled so far. */
    public int scheduled() {
        return scheduled.get();
    }

    @Override
    public Disposable schedule(Runnable task) {
        return delegate.schedule(task);
    }

    @Override
    public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
        scheduled.incrementAndGet();
        return delegate.schedule(task, delay, unit);
    }

    @Override
    public long now(TimeUnit unit) {
        return delegate.now(unit);
    }

    @Override
    public Worker createWorker() {
        return delegate.createWorker();
    }
}
