package dev.lanes.dispatch;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.scheduler.Scheduler;

/**
 * The dispatcher's subscriber to its source: credit-based demand that never lets admitted exchanges exceed {@code
 * maxQueued}.
 *
 * <p>Credits: at start the source gets {@code maxQueued}; a slot freed by a settled or refused exchange becomes a credit
 * again, returned to the source in batches of a quarter of the bound. Requests are serialized by a work-in-progress
 * counter, as Reactive Streams requires; cancellation runs on the cleanup scheduler so a blocking cancel hook can
 * never hold up the caller.
 */
final class Intake<M> implements CoreSubscriber<MessageExchange<M>> {
    private final Consumer<MessageExchange<M>> admit;
    private final Consumer<Throwable> sourceFailed;
    private final int maxQueued;
    private final int batch;
    private final BooleanSupplier paused;
    private final AtomicInteger credits = new AtomicInteger();
    private final AtomicInteger requesting = new AtomicInteger();
    private volatile @Nullable Subscription subscription;
    private volatile boolean started;
    private volatile boolean cancelled;

    /**
     * @param paused while true, freed slots are kept as credits instead of being requested (a lane is over its bound)
     */
    Intake(
            Consumer<MessageExchange<M>> admit,
            Consumer<Throwable> sourceFailed,
            int maxQueued,
            BooleanSupplier paused) {
        this.paused = paused;
        this.admit = admit;
        this.sourceFailed = sourceFailed;
        this.maxQueued = maxQueued;
        this.batch = Math.max(1, maxQueued / 4);
    }

    @Override
    public void onSubscribe(Subscription s) {
        if (subscription != null || cancelled) {
            s.cancel();
            return;
        }
        subscription = s;
        if (started) {
            release(maxQueued, true);
        }
    }

    /** Opens demand: the source may now deliver up to {@code maxQueued} exchanges. */
    void start() {
        started = true;
        if (subscription != null) {
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

    /** Returns freed slots as credits; requests from the source once a batch has gathered. */
    void release(int slots, boolean now) {
        int gathered = credits.addAndGet(slots);
        if (!started || cancelled || paused.getAsBoolean() || (!now && gathered < batch)) {
            return;
        }
        if (requesting.getAndIncrement() != 0) {
            return;
        }
        do {
            Subscription s = subscription;
            // credits are only taken when they are requested: a pause keeps them for the relief
            if (s != null && !cancelled && !paused.getAsBoolean()) {
                int n = credits.getAndSet(0);
                if (n > 0) {
                    s.request(n);
                }
            }
        } while (requesting.decrementAndGet() != 0);
    }

    /** Stops taking from the source; the physical cancel runs on {@code cleanup}. Idempotent. */
    void cancel(Scheduler cleanup) {
        if (cancelled) {
            return;
        }
        cancelled = true;
        Subscription s = subscription;
        if (s != null) {
            cleanup.schedule(s::cancel);
        }
    }
}
