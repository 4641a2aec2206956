package dev.lanes.dispatch;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/**
 * The dispatcher's subscriber to its source: credit-based demand that never lets admitted exchanges exceed {@code
 * maxQueued}, and the serializer of the dispatcher's producer side.
 *
 * <p><b>Credits.</b> At start the source gets {@code maxQueued}; a slot freed by a settled or refused exchange becomes a
 * credit again, returned to the source in batches of a quarter of the bound (or at once when the dispatcher ran empty).
 * So the source pauses exactly when the whole budget is admitted and not yet settled, whichever lanes hold it. Requests
 * are serialized by a work-in-progress counter, as Reactive Streams requires. Cancellation, also of a subscription that
 * arrives after the intake was cancelled, runs on the cleanup executor, so a blocking cancel hook never holds up the
 * caller.
 *
 * <p><b>Producer side.</b> Everything that writes to lanes ({@link Producer}) runs for one thread at a time: whoever
 * holds {@code producing}, a work-in-progress count that never blocks. The thread that requests from the source holds it
 * for the whole {@code request(n)} call when it can, so the exchanges a synchronous source emits inside that call are
 * {@linkplain Producer#stage staged} and published once per lane when the call returns ({@link Producer#flush}).
 * An exchange delivered on any other thread (a user's producer emitting into a sink whose buffer has demand) is queued,
 * and the thread that finds the producer side free hands the queue's drain to {@code elsewhere} (the workers) instead
 * of admitting it itself: the drain takes it and everything queued meanwhile, stages them as a burst and publishes
 * them together, and more arriving while it runs are queued for it. So a source that emits from its own thread pays a
 * queue offer per exchange and one hand-off per drain, not an admission, a publication and a worker's wake-up per
 * exchange. While a drain is due, the producer side {@linkplain Producer#holdOpen holds the dispatcher open}, so a
 * graceful stop waits for what is queued. Reactive Streams makes deliveries serial, and the queue is FIFO, so the order
 * of delivery is the order of admission.
 *
 * <p><b>Unleased work.</b> An exchange queued for the holder, or gathered in a burst, is not admitted yet: it holds no
 * activity lease, so the runtime's lease count does not see it. {@link #holdsUnleasedWork()} does: it is true from a
 * delivering thread's queueing (its count taken right after the offer) until the holder let go, after which everything
 * it took is staged with its lease (or handed back). The runtime asks it before its quiet period ends.
 */
final class Intake<M> implements CoreSubscriber<MessageExchange<M>> {
    /**
     * Where delivered exchanges go; {@link #stage} and {@link #flush} are called by the holder of the producer side
     * only, {@link #holdOpen} and {@link #closeAgain} from any thread.
     */
    interface Producer<M> {
        /** One exchange of a request burst: admitted now, published to its lane by {@link #flush} at the latest. */
        void stage(MessageExchange<M> exchange);

        /** Publishes everything staged. */
        void flush();

        /**
         * A drain of queued deliveries is due on another thread: until {@link #closeAgain}, the dispatcher counts one
         * exchange more as admitted, so a graceful stop waits for the drain. Any thread.
         */
        void holdOpen();

        /** The drain announced by {@link #holdOpen} is done (what it took is staged and published). Any thread. */
        void closeAgain();
    }

    private final Producer<M> producer;
    private final Consumer<Throwable> sourceFailed;
    private final Consumer<Runnable> cleanup;
    private final int maxQueued;
    private final int batch;
    private final AtomicInteger credits = new AtomicInteger();
    private final AtomicInteger requesting = new AtomicInteger();
    /** The producer side: 0 free; otherwise held, plus one per exchange queued or work signalled meanwhile. */
    private final AtomicInteger producing = new AtomicInteger();
    /** Exchanges delivered while another thread held the producer side; taken by the holder, in order. */
    private final Queue<MessageExchange<M>> deferred = new ConcurrentLinkedQueue<>();
    /** The thread inside {@code request(n)} holding the producer side, while it is; null otherwise. */
    private volatile @Nullable Thread burst;

    private volatile @Nullable Subscription subscription;
    private volatile boolean started;
    /** Where requests that come due during the first one continue; set before {@code started}. */
    private Consumer<Runnable> elsewhere = Runnable::run;

    private final AtomicBoolean opened = new AtomicBoolean();
    private volatile boolean cancelled;

    /**
     * @param cleanup runs a cancellation off the calling thread (never throws; falls back to running it inline)
     */
    Intake(Producer<M> producer, Consumer<Throwable> sourceFailed, Consumer<Runnable> cleanup, int maxQueued) {
        this.producer = producer;
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

    /**
     * Opens demand: the source may now deliver up to {@code maxQueued} exchanges. The caller makes the first request
     * only; requests that come due meanwhile continue on {@code elsewhere} (the workers), so the caller returns after one
     * burst of a synchronous source, and the bursts after it run where their exchanges are handled.
     */
    void start(Consumer<Runnable> elsewhere) {
        this.elsewhere = elsewhere;
        started = true;
        openIfReady();
    }

    /**
     * Gives the source its first {@code maxQueued} credits once, when both subscribed and started (either order, either
     * thread): a late subscription racing with {@link #start} must not open demand twice.
     */
    private void openIfReady() {
        if (!started || subscription == null || !opened.compareAndSet(false, true)) {
            return;
        }
        credits.addAndGet(maxQueued);
        if (requesting.getAndIncrement() != 0) {
            return;
        }
        requestGathered();
        if (requesting.decrementAndGet() != 0) {
            elsewhere.accept(this::keepRequesting);
        }
    }

    @Override
    public void onNext(MessageExchange<M> exchange) {
        if (burst == Thread.currentThread()) {
            if (producing.get() != 1) {
                stageDeferred(); // delivered elsewhere during this burst, so before this one
            }
            producer.stage(exchange);
            return;
        }
        deferred.offer(exchange);
        if (producing.getAndIncrement() == 0) { // the producer side was free: this thread holds it, for a drain
            producer.holdOpen();
            elsewhere.accept(this::drainDeferred);
        }
    }

    /** Runs elsewhere for a delivering thread that took the producer side: stages and publishes what is queued. */
    private void drainDeferred() {
        try {
            leave(1);
        } finally {
            producer.closeAgain();
        }
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
        keepRequesting();
    }

    /** Holding the request loop: requests what has gathered until no release is left unserved. */
    private void keepRequesting() {
        do {
            requestGathered();
        } while (requesting.decrementAndGet() != 0);
    }

    private void requestGathered() {
        Subscription s = subscription;
        if (s != null && !cancelled) {
            int n = credits.getAndSet(0);
            if (n > 0) {
                request(s, n);
            }
        }
    }

    /**
     * Requests {@code n}, holding the producer side for the call if it is free: what the source emits inside the call, on
     * this thread, is staged and published when the call returns. If another thread holds it, deliveries go through it.
     */
    private void request(Subscription s, int n) {
        if (!producing.compareAndSet(0, 1)) {
            s.request(n);
            return;
        }
        burst = Thread.currentThread();
        try {
            s.request(n);
        } finally {
            burst = null;
            leave(1);
        }
    }

    /**
     * The holder lets go, its own work being {@code missed} signals: publishes what is staged and takes what was queued
     * meanwhile, until no signal is left.
     */
    private void leave(int missed) {
        do {
            try {
                stageDeferred();
            } finally {
                producer.flush();
            }
            missed = producing.addAndGet(-missed);
        } while (missed != 0);
    }

    private void stageDeferred() {
        for (MessageExchange<M> exchange; (exchange = deferred.poll()) != null; ) {
            producer.stage(exchange);
        }
    }

    /**
     * Whether the producer side is held, or exchanges are queued for it: delivered exchanges may be on their way to
     * admission without an activity lease. Any thread. A delivering thread whose own lease (a publishing command's)
     * closes after its {@code onNext} returned is covered: it counted itself in before returning.
     */
    boolean holdsUnleasedWork() {
        return producing.get() != 0;
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
