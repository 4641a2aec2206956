package dev.lanes.scheduler;

import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.util.concurrent.Queues;

/**
 * A Reactor {@link Scheduler.Worker} on a {@link PoolScheduler}: its tasks run one at a time, in submission order (a
 * delayed task takes its place when its delay has passed), on any thread of the pool. A work-in-progress counter hands
 * the drain from one submitter to the next; the drain is itself one pool task.
 *
 * <p>After dispose, tasks not yet started are dropped and new ones are refused.
 */
final class SerialWorker implements Scheduler.Worker, Runnable {
    private final PoolScheduler scheduler;
    private final Queue<PoolScheduler.Task> queue =
            Queues.<PoolScheduler.Task>unboundedMultiproducer().get();
    private final AtomicInteger wip = new AtomicInteger();
    private volatile boolean disposed;

    SerialWorker(PoolScheduler scheduler) {
        this.scheduler = scheduler;
    }

    @Override
    public Disposable schedule(Runnable task) {
        PoolScheduler.Task scheduled = task(task);
        enqueue(scheduled);
        return scheduled;
    }

    @Override
    public Disposable schedule(Runnable task, long delay, TimeUnit unit) {
        if (delay <= 0) {
            return schedule(task);
        }
        PoolScheduler.Task scheduled = task(task);
        scheduled.setFuture(scheduler.pool().timer().schedule(() -> enqueueQuietly(scheduled), delay, unit));
        return scheduled;
    }

    @Override
    public Disposable schedulePeriodically(Runnable task, long initialDelay, long period, TimeUnit unit) {
        PoolScheduler.Task scheduled = task(task);
        scheduled.setFuture(scheduler
                .pool()
                .timer()
                .scheduleAtFixedRate(() -> enqueueQuietly(scheduled), initialDelay, period, unit));
        return scheduled;
    }

    @Override
    public void dispose() {
        disposed = true;
    }

    @Override
    public boolean isDisposed() {
        return disposed || scheduler.isDisposed();
    }

    @Override
    public void run() {
        int missed = 1;
        do {
            for (PoolScheduler.Task task; (task = queue.poll()) != null; ) {
                if (!disposed) {
                    task.run();
                }
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }

    private PoolScheduler.Task task(Runnable task) {
        if (isDisposed()) {
            throw new RejectedExecutionException("worker of " + scheduler + " is disposed");
        }
        return new PoolScheduler.Task(Schedulers.onSchedule(task));
    }

    private void enqueue(PoolScheduler.Task task) {
        queue.offer(task);
        if (wip.getAndIncrement() == 0) {
            scheduler.execute(this);
        }
    }

    private void enqueueQuietly(PoolScheduler.Task task) {
        try {
            enqueue(task);
        } catch (RejectedExecutionException disposedMeanwhile) {
            // the scheduler was disposed while the task waited for its delay: it is dropped, as a disposed worker's are
        }
    }
}
