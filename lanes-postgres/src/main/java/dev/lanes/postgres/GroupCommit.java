package dev.lanes.postgres;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;

/**
 * Gathers work items submitted from any thread into batches for a {@link BatchWriter}: at most {@code writers} batches
 * are written at once, each of at most {@code batchSize} items in submission order. A submission that finds a writer
 * free is written at once (alone, if nothing else is queued); while every writer is busy, submissions queue and the next
 * free writer takes up to {@code batchSize} of them. A writer that starts while another batch is still being written
 * may wait up to {@code maxWait} for its batch to fill; one that starts on an idle queue never waits. A waiting writer
 * sleeps until the submission that fills its batch wakes it, or its wait ends: it does not poll the queue.
 *
 * <p>Threads: batches are written on {@code scheduler}; every submission's outcome is signalled there. After {@link
 * #close()}, queued submissions fail with the closed error and new ones are refused the same way.
 */
final class GroupCommit<T, R> {

    /**
     * One submitted item and its caller. The batch's writer gives it an outcome ({@link #succeed}, {@link #fail}; the
     * first one given counts); the group commit tells the caller once the writer returned ({@link #tell}).
     *
     * <p>Threads: only the thread that took the item from the queue (a writer, or a submitter or closer failing what
     * is queued) gives it an outcome and tells it, so its outcome needs no synchronisation.
     */
    static final class Pending<T, R> {
        final T item;
        private final MonoSink<R> sink;
        private volatile boolean cancelled;
        private boolean given;
        private @Nullable R value;
        private @Nullable Throwable error;

        Pending(T item, MonoSink<R> sink) {
            this.item = item;
            this.sink = sink;
        }

        void succeed() {
            given = true;
        }

        void succeed(R value) {
            if (!given) {
                given = true;
                this.value = value;
            }
        }

        void fail(Throwable error) {
            if (!given) {
                given = true;
                this.error = error;
            }
        }

        /** Signals the outcome to the caller, on this thread; one the writer left without an outcome fails. */
        void tell(String component) {
            if (!given) {
                fail(new IllegalStateException(
                        component + ": the batch's writer returned without an outcome for " + item));
            }
            Throwable failed = error;
            R written = value;
            if (failed != null) {
                sink.error(failed);
            } else if (written != null) {
                sink.success(written);
            } else {
                sink.success();
            }
        }
    }

    /**
     * Writes one batch and gives every one of its items an outcome, on its own thread before it returns (it must not
     * throw). The outcomes reach their callers after it returned, so that no caller's continuation runs while it holds
     * what it writes with (a connection).
     */
    @FunctionalInterface
    interface BatchWriter<T, R> {
        void write(List<Pending<T, R>> batch);
    }

    private final ConcurrentLinkedQueue<Pending<T, R>> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger writing = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Writers waiting for their batch to fill; a submission that fills one wakes them through {@link #filled}. */
    private final AtomicInteger waitingToFill = new AtomicInteger();

    private final ReentrantLock fillLock = new ReentrantLock();
    private final Condition filled = fillLock.newCondition();
    private final String name;
    private final Scheduler scheduler;
    private final int writers;
    private final int batchSize;
    private final long maxWaitNanos;
    private final BatchWriter<T, R> writer;
    private final Supplier<RuntimeException> closedError;

    GroupCommit(
            String name,
            Scheduler scheduler,
            int writers,
            int batchSize,
            long maxWaitNanos,
            BatchWriter<T, R> writer,
            Supplier<RuntimeException> closedError) {
        if (writers < 1 || batchSize < 1 || maxWaitNanos < 0) {
            throw new IllegalArgumentException(name
                    + ": group commit needs writers and a batch size of at least 1 and a wait"
                    + " of at least 0: writers " + writers + ", batch size " + batchSize + ", wait " + maxWaitNanos
                    + " ns");
        }
        this.name = Objects.requireNonNull(name, "name");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.writers = writers;
        this.batchSize = batchSize;
        this.maxWaitNanos = maxWaitNanos;
        this.writer = Objects.requireNonNull(writer, "writer");
        this.closedError = Objects.requireNonNull(closedError, "closedError");
    }

    /** Queues {@code item} when subscribed; completes when its batch has been written and its own outcome is known. */
    Mono<R> submit(T item) {
        return Mono.create(sink -> {
            Pending<T, R> pending = new Pending<T, R>(item, sink);
            sink.onCancel(() -> pending.cancelled = true);
            if (closed.get()) {
                pending.fail(closedError.get());
                pending.tell(name);
                return;
            }
            queue.add(pending);
            if (queued.incrementAndGet() >= batchSize && waitingToFill.get() > 0) {
                wakeWaitingWriters();
            }
            if (closed.get()) {
                failQueued();
                return;
            }
            startWriter();
        });
    }

    /*
     * No submission is left behind: a submitter counts its item before it looks at the writers, and a writer counts
     * itself out before it looks at the queue, so of a submitter that finds every writer busy and a writer that ends
     * at that moment, at least one sees the other and starts a writer.
     */
    private void startWriter() {
        for (; ; ) {
            int active = writing.get();
            if (active >= writers || queued.get() == 0) {
                return;
            }
            if (writing.compareAndSet(active, active + 1)) {
                try {
                    scheduler.schedule(this::writeOneBatch);
                } catch (RejectedExecutionException stopped) {
                    writing.decrementAndGet();
                    failQueued();
                }
                return;
            }
        }
    }

    /*
     * The batch's outcomes are told after the writer's slot is given back: a caller's continuation (its answer, the
     * next command of its lane, a client's next send) runs on this thread, and meanwhile another writer may take the
     * queue; before, every continuation of a batch ran while the batch held its slot and its connection.
     */
    private void writeOneBatch() {
        List<Pending<T, R>> batch = List.of();
        @Nullable Error fatal = null;
        try {
            batch = take();
            if (!batch.isEmpty()) {
                writer.write(batch);
            }
        } catch (RuntimeException | Error unexpected) {
            for (Pending<T, R> pending : batch) {
                pending.fail(unexpected);
            }
            if (unexpected instanceof Error error) {
                fatal = error;
            }
        } finally {
            writing.decrementAndGet();
            if (closed.get()) {
                failQueued();
            } else {
                startWriter();
            }
        }
        for (Pending<T, R> pending : batch) {
            pending.tell(name);
        }
        if (fatal != null) {
            throw fatal;
        }
    }

    /** Up to {@code batchSize} queued items, after waiting for more while another batch is being written. */
    private List<Pending<T, R>> take() {
        if (maxWaitNanos > 0 && writing.get() > 1 && queued.get() < batchSize) {
            awaitFilled();
        }
        List<Pending<T, R>> batch = new ArrayList<>(Math.min(batchSize, Math.max(1, queued.get())));
        while (batch.size() < batchSize) {
            Pending<T, R> next = queue.poll();
            if (next == null) {
                break;
            }
            queued.decrementAndGet();
            if (!next.cancelled) {
                batch.add(next);
            }
        }
        return batch;
    }

    /*
     * No wake-up is lost: a writer counts itself as waiting before it looks at the queue under the lock, and a
     * submitter counts its item before it looks for waiting writers, so either the writer sees the batch full or the
     * submitter sees the writer and signals it under the same lock (after the writer began to wait, or before it looked).
     */
    private void awaitFilled() {
        waitingToFill.incrementAndGet();
        fillLock.lock();
        try {
            long remaining = maxWaitNanos;
            while (queued.get() < batchSize && !closed.get() && remaining > 0) {
                remaining = filled.awaitNanos(remaining);
            }
        } catch (InterruptedException stopping) {
            Thread.currentThread().interrupt(); // the scheduler is stopping: write what is queued now
        } finally {
            fillLock.unlock();
            waitingToFill.decrementAndGet();
        }
    }

    /** Writers now waiting for their batch to fill (for tests). */
    int writersWaitingToFill() {
        return waitingToFill.get();
    }

    private void wakeWaitingWriters() {
        fillLock.lock();
        try {
            filled.signalAll();
        } finally {
            fillLock.unlock();
        }
    }

    private void failQueued() {
        for (Pending<T, R> next = queue.poll(); next != null; next = queue.poll()) {
            queued.decrementAndGet();
            next.fail(closedError.get());
            next.tell(name);
        }
    }

    /** Fails what is queued and refuses what comes; batches being written finish. */
    void close() {
        if (closed.compareAndSet(false, true)) {
            failQueued();
            wakeWaitingWriters();
        }
    }
}
