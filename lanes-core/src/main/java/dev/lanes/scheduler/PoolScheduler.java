package dev.lanes.scheduler;

import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A Reactor {@link Scheduler} on a {@link WorkerPool}: either the pool's owner (one type, one pool: disposing the
 * scheduler shuts the pool down) or a view of a pool shared by several types (disposing the view refuses its new tasks;
 * the supplier shuts the pool down).
 *
 * <p>It is also an {@link Executor}: {@link #execute} submits a plain task without the {@link Disposable} that {@link
 * #schedule} returns, which is how the lane engine runs its lanes. Workers ({@link #createWorker()}) run their tasks
 * one at a time, in order, on any of the pool's threads.
 *
 * <p>After dispose every submission throws {@link RejectedExecutionException} naming the scheduler.
 */
final class PoolScheduler implements Scheduler, Executor {
    private static final Logger log = LoggerFactory.getLogger(PoolScheduler.class);

    private final String name;
    private final WorkerPool pool;
    private final boolean ownsPool;
    private volatile boolean disposed;

    private PoolScheduler(String name, WorkerPool pool, boolean ownsPool) {
        this.name = name;
        this.pool = pool;
        this.ownsPool = ownsPool;
    }

    /** A scheduler that owns {@code pool}: disposing it shuts the pool down. */
    static PoolScheduler owning(WorkerPool pool) {
        return new PoolScheduler(pool.threadPrefix(), pool, true);
    }

    /** A view named {@code name} of a pool shared by several types; the pool's owner shuts it down. */
    static PoolScheduler sharing(String name, WorkerPool pool) {
        return new PoolScheduler(name, pool, false);
    }

    String name() {
        return name;
    }

    @Override
    public void execute(Runnable task) {
        if (disposed) {
            throw refused();
        }
        pool.execute(task);
    }

    @Override
    public Disposable schedule(Runnable task) {
        Task scheduled = new Task(Schedulers.onSchedule(task));
        execute(scheduled);
        return scheduled;
    }

    @Override
    public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
        if (delay <= 0) {
            return schedule(task);
        }
        if (disposed) {
            throw refused();
        }
        Task scheduled = new Task(Schedulers.onSchedule(task));
        scheduled.setFuture(pool.executeLater(scheduled, delay, unit));
        return scheduled;
    }

    @Override
    public Disposable schedulePeriodically(Runnable task, long initialDelay, long period, TimeUnit unit) {
        if (disposed) {
            throw refused();
        }
        Task scheduled = new Task(Schedulers.onSchedule(task));
        scheduled.setFuture(pool.executePeriodically(scheduled, initialDelay, period, unit));
        return scheduled;
    }

    @Override
    public Worker createWorker() {
        return new SerialWorker(this);
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }

    @Override
    public void dispose() {
        disposed = true;
        if (ownsPool) {
            pool.shutdownNow();
        }
    }

    /** Refuses new tasks; completes when the pool's queued and running tasks are done. */
    @Override
    public Mono<Void> disposeGracefully() {
        return Mono.defer(() -> {
            disposed = true;
            return ownsPool ? pool.shutdown() : pool.quiescence();
        });
    }

    @Override
    public void init() {}

    RejectedExecutionException refused() {
        return new RejectedExecutionException(this + " is disposed");
    }

    WorkerPool pool() {
        return pool;
    }

    @Override
    public String toString() {
        return "Scheduler[" + name + (ownsPool ? "" : " on " + pool) + (disposed ? ", disposed" : "") + "]";
    }

    /** A scheduled task: runs at most once per submission unless disposed; an escaping error is logged. */
    static final class Task implements Runnable, Disposable {
        private final Runnable task;
        private final AtomicReference<@Nullable Future<?>> future = new AtomicReference<>();
        private volatile boolean disposed;

        Task(Runnable task) {
            this.task = task;
        }

        void setFuture(Future<?> scheduled) {
            future.set(scheduled);
            if (disposed) {
                scheduled.cancel(false);
            }
        }

        @Override
        public void run() {
            if (disposed) {
                return;
            }
            try {
                task.run();
            } catch (Throwable error) {
                log.error("Scheduled task failed on {}", Thread.currentThread().getName(), error);
            }
        }

        @Override
        public void dispose() {
            disposed = true;
            Future<?> scheduled = future.get();
            if (scheduled != null) {
                scheduled.cancel(false);
            }
        }

        @Override
        public boolean isDisposed() {
            return disposed;
        }
    }
}
