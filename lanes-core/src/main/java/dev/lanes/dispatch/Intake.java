package dev.lanes.dispatch;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/**
 * The dispatcher's subscriber to its source: credit-based demand that never lets admitted exchanges exceed {@code
 * maxQueued}.
 *
 * <p>Credits: at start the source gets {@code maxQueued}; a slot freed by a settled or refused exchange becomes a credit
 * again, returned to the source in batches of a quarter of the bound (or at once when the dispatcher ran empty). So the
 * source pauses exactly when the whole budget is admitted and not yet settled, whichever lanes hold it. Requests are
 * serialized by a work-in-progress counter, as Reactive Streams requires. Cancellation, also of a subscription that
 * arrives after the intake was cancelled, runs on the cleanup executor, so a blocking cancel hook never holds up the
 * caller.
 */
final class Intake<M> implements CoreSubscriber<MessageExchange<M>> {
    private final Consumer<MessageExchange<M>> admit;
    private final Consumer<Throwable> sourceFailed;
    private final Consumer<Runnable> cleanup;
    private final int maxQueued;
    private final int batch;
    private final AtomicInteger credits = new AtomicInteger();
    private final AtomicInteger requesting = new AtomicInteger();
    private volatile @Nullable Subscription subscription;
    private volatile boolean started;
    private final java.util.concurrent.atomic.AtomicBoolean opened = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile boolean cancelled;

    /**
     * @param cleanup runs a cancellation off the calling thread (never throws; falls back to running it inline)
     */
    Intake(
            Consumer<MessageExchange<M>> admit,
            Consumer<Throwable> sourceFailed,
            Consumer<Runnable> cleanup,
            int maxQueued) {
        this.admit = admit;
        this.sourceFailed = sourceFailed;
        this.cleanup = cleanup;
        this.maxQueued = maxQueued;
        this.batch = Math.max(1, maxQueued / 4);
    }

    @Override
    public void onSubscribe(Subscription s) {
        if (subscription != null || cancelled) {
            cleanup.accept(s::cancel);
            return;
        }
        subscription = s;
        if (cancelled) { // cancelled while we subscribed: cancel() may have missed it
            cleanup.accept(s::cancel);
        } else {
            openIfReady();
        }
    }

    /** Opens demand: the source may now deliver up to {@code maxQueued} exchanges. */
    void start() {
        started = true;
        openIfReady();
    }

    /** Gives the source its first {@code maxQueued} credits once, when both subscribed and started (either order). */
    private void openIfReady() {
        if (started && subscription != null && opened.compareAndSet(false, true)) {
            release(maxQueued, true);
        }
    }

    @Override
    public void onNext(MessageExchange<M> exchange) {
        admit.accept(exchange);
    }

    @Override
    public void onError(Throwable error) {
        if (!cancelled) {
            sourceFailed.accept(error);
        }
    }

    @Override
    public void onComplete() {}

    /** Returns freed slots as credits; requests from the source once a batch has gathered, or at once if {@code now}. */
    void release(int slots, boolean now) {
        int gathered = credits.addAndGet(slots);
        if (!started || cancelled || (!now && gathered < batch)) {
            return;
        }
        if (requesting.getAndIncrement() != 0) {
            return;
        }
        do {
            Subscription s = subscription;
            if (s != null && !cancelled) {
                int n = credits.getAndSet(0);
                if (n > 0) {
                    s.request(n);
                }
            }
        } while (requesting.decrementAndGet() != 0);
    }

    /** Stops taking from the source; the physical cancel runs on the cleanup executor. Idempotent. */
    void cancel() {
        if (cancelled) {
            return;
        }
        cancelled = true;
        Subscription s = subscription;
        if (s != null) {
            cleanup.accept(s::cancel);
        }
    }
}
