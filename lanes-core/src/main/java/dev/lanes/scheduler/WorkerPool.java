package dev.lanes.scheduler;

import java.time.Duration;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.NonBlocking;
import reactor.core.scheduler.Schedulers;

/**
 * A fixed set of worker threads that take tasks from shared queues: a task submitted from outside goes to a submission
 * queue any idle worker takes from, one submitted from a worker goes to that worker's queue, from which an idle worker
 * steals. So a task waits for a busy worker only when every worker is busy. Built on a FIFO {@link ForkJoinPool}.
 *
 * <p>A worker that blocks its thread breaks that pool's assumption that a busy worker soon runs or hands out what it
 * queued itself. In JDK 17's pool a worker going idle rescans the queues only when it is the last one running, so the
 * wake-up for a task pushed while it was deactivating can be lost; the task then waits for the blocked worker or for
 * the pool's next submission. That was seen once in 20,000 tries with the CPUs loaded, and once in this module's test
 * suite. So every {@link #STALL_CHECK} the supplier's timer looks for tasks queued while a worker idles and, if it
 * finds some, submits an empty task, which wakes an idle worker to steal them: such a task waits about that long at
 * most.
 *
 * <p>At most {@code parallelism} threads, named {@code <threadPrefix>-<n>}, marked {@link NonBlocking} (Reactor's
 * {@code block()} and BlockHound refuse to block on them); created on demand and retired after a minute idle. Delayed
 * tasks wait on the supplier's timer and are then submitted here.
 *
 * <p>After {@link #shutdown()} new tasks are refused with {@link RejectedExecutionException}; submitted ones still run.
 * {@link #shutdownNow()} also drops queued tasks and interrupts running ones.
 */
final class WorkerPool {
    private static final Duration AWAIT_STEP = Duration.ofMillis(100);
    static final Duration STALL_CHECK = Duration.ofMillis(100);
    private static final Runnable WAKE_UP = () -> {};

    private final String threadPrefix;
    private final ForkJoinPool pool;
    private final ScheduledExecutorService timer;
    private final Mono<Void> gracefulTermination;
    private final ScheduledFuture<?> stallCheck;

    WorkerPool(String threadPrefix, int parallelism, ScheduledExecutorService timer) {
        this.threadPrefix = threadPrefix;
        this.timer = timer;
        this.pool = new ForkJoinPool(parallelism, new Factory(threadPrefix), null, true);
        this.stallCheck = timer.scheduleWithFixedDelay(
                this::wakeAnIdleWorkerIfTasksWait,
                STALL_CHECK.toMillis(),
                STALL_CHECK.toMillis(),
                TimeUnit.MILLISECONDS);
        this.gracefulTermination = Mono.<Void>fromRunnable(() -> {
                    pool.shutdown();
                    awaitTermination();
                    stallCheck.cancel(false);
                })
                .subscribeOn(Schedulers.boundedElastic())
                .cache();
    }

    String threadPrefix() {
        return threadPrefix;
    }

    /** Runs {@code task} on a worker; never blocks. */
    void execute(Runnable task) {
        pool.execute(task);
    }

    /** Submits {@code task} here after {@code delay}; refused later if the pool has shut down meanwhile. */
    ScheduledFuture<?> executeLater(Runnable task, long delay, TimeUnit unit) {
        return timer.schedule(() -> execute(task), delay, unit);
    }

    ScheduledFuture<?> executePeriodically(Runnable task, long initialDelay, long period, TimeUnit unit) {
        return timer.scheduleAtFixedRate(() -> execute(task), initialDelay, period, unit);
    }

    ScheduledExecutorService timer() {
        return timer;
    }

    /** Completes once no task of this pool is queued or running, or it has shut down; waits off the caller's thread. */
    Mono<Void> quiescence() {
        return Mono.<Void>fromRunnable(() -> {
                    while (!pool.awaitQuiescence(AWAIT_STEP.toMillis(), TimeUnit.MILLISECONDS) && !pool.isShutdown()) {
                        // not quiescent yet: wait another step
                    }
                })
                .subscribeOn(Schedulers.boundedElastic());
    }

    boolean isShutdown() {
        return pool.isShutdown();
    }

    /** Refuses new tasks, lets queued and running ones finish; completes when every worker has ended. Shared. */
    Mono<Void> shutdown() {
        return gracefulTermination;
    }

    void shutdownNow() {
        stallCheck.cancel(false);
        pool.shutdownNow();
    }

    /**
     * Runs on the supplier's timer (see the class comment); reads only {@link #pool}, which is set before the check is
     * scheduled. A pool that has shut down takes no task, so a stall while it drains lasts until the worker unblocks.
     */
    private void wakeAnIdleWorkerIfTasksWait() {
        if (!pool.isShutdown()
                && pool.getQueuedTaskCount() > 0
                && pool.getActiveThreadCount() < pool.getParallelism()) {
            try {
                pool.execute(WAKE_UP);
            } catch (RejectedExecutionException shutDownMeanwhile) {
                // the drain or the forced stop takes over
            }
        }
    }

    /** Blocks until every worker has ended; runs on a bounded-elastic thread, never on a worker. */
    private void awaitTermination() {
        try {
            while (!pool.awaitTermination(AWAIT_STEP.toMillis(), TimeUnit.MILLISECONDS)) {
                // graceful termination has no deadline of its own: the runtime's deadline forces it
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "WorkerPool[" + threadPrefix + ", " + pool.getParallelism() + " workers]";
    }

    /** Names the workers {@code <prefix>-1, -2, ...}, as Reactor's parallel schedulers do. */
    private static final class Factory implements ForkJoinPool.ForkJoinWorkerThreadFactory {
        private final String prefix;
        private final AtomicInteger counter = new AtomicInteger();

        Factory(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public ForkJoinWorkerThread newThread(ForkJoinPool pool) {
            Worker worker = new Worker(pool);
            worker.setName(prefix + "-" + counter.incrementAndGet());
            return worker;
        }
    }

    private static final class Worker extends ForkJoinWorkerThread implements NonBlocking {
        Worker(ForkJoinPool pool) {
            super(pool);
        }
    }
}
