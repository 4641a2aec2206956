package dev.lanes.benchmarks;

import dev.lanes.dispatch.ExchangeHandler;
import dev.lanes.dispatch.MessageExchange;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/**
 * Feeds a source into a {@link JucBaseline} of its own: the adapter a Reactive Streams source needs, not part of the
 * baseline's design. At most {@code window} exchanges are requested and not yet settled, as the engine's {@code
 * maxQueued} bounds its intake; settled slots are requested again in batches of a quarter of the window. A window of 0
 * requests everything at once (no bound: the source runs at its own pace and the lanes' queues hold the backlog).
 *
 * <p>Reactive Streams requires serial calls to {@code request}: settlements come from every worker, so requests are
 * serialized by a work-in-progress counter and made by whichever thread entered first.
 */
final class BaselineIntake<M> implements CoreSubscriber<MessageExchange<M>> {
    private final JucBaseline<M> baseline;
    private final Consumer<Throwable> failed;
    private final int window;
    private final int batch;
    private final AtomicInteger freed = new AtomicInteger();
    private final AtomicInteger requesting = new AtomicInteger();
    private volatile @Nullable Subscription subscription;

    /**
     * @param pool runs the baseline's lane tasks
     * @param window exchanges in flight at most, or 0 for no bound
     * @param failed told if the source fails
     */
    BaselineIntake(ExecutorService pool, ExchangeHandler<M> handler, int window, Consumer<Throwable> failed) {
        if (window < 0) {
            throw new IllegalArgumentException("window must be 0 (no bound) or positive: " + window);
        }
        this.baseline = new JucBaseline<>(pool, handler, this::settled); // called only once exchanges flow
        this.failed = failed;
        this.window = window;
        this.batch = Math.max(1, window / 4);
    }

    @Override
    public void onSubscribe(Subscription s) {
        subscription = s;
        s.request(window == 0 ? Long.MAX_VALUE : window);
    }

    @Override
    public void onNext(MessageExchange<M> exchange) {
        baseline.submit(exchange);
    }

    @Override
    public void onError(Throwable error) {
        failed.accept(error);
    }

    @Override
    public void onComplete() {}

    /** One exchange was settled (any thread): its slot goes back to the source once a batch of slots has gathered. */
    void settled() {
        if (window == 0 || freed.incrementAndGet() < batch || requesting.getAndIncrement() != 0) {
            return;
        }
        do {
            int n = freed.get();
            Subscription s = subscription;
            if (n >= batch && s != null) {
                freed.addAndGet(-n);
                s.request(n);
            }
        } while (requesting.decrementAndGet() != 0);
    }

    /** Stops taking from the source. */
    void cancel() {
        Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }
}
