package dev.lanes.dispatch;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;

/**
 * A source the checks drive by hand: {@link #deliver} calls the subscriber's {@code onNext} on the calling thread,
 * whatever the demand (as a source may still deliver in flight after a cancel). Its subscription sums what was requested
 * and notes whether two {@code request} calls overlapped, which Reactive Streams forbids (rule 2.7).
 */
final class ManualSource extends Flux<MessageExchange<String>> {
    final Demand demand = new Demand();
    private volatile @Nullable CoreSubscriber<? super MessageExchange<String>> subscriber;

    @Override
    public void subscribe(CoreSubscriber<? super MessageExchange<String>> actual) {
        subscriber = actual;
        actual.onSubscribe(demand);
    }

    void deliver(MessageExchange<String> exchange) {
        Objects.requireNonNull(subscriber, "not subscribed").onNext(exchange);
    }

    /** A subscription that counts demand. */
    static final class Demand implements Subscription {
        private final AtomicLong requested = new AtomicLong();
        private final AtomicInteger inside = new AtomicInteger();
        private volatile boolean overlapped;
        private volatile boolean cancelled;

        @Override
        public void request(long n) {
            if (inside.getAndIncrement() != 0) {
                overlapped = true;
            }
            requested.addAndGet(n);
            inside.decrementAndGet();
        }

        @Override
        public void cancel() {
            cancelled = true;
        }

        long requested() {
            return requested.get();
        }

        boolean overlapped() {
            return overlapped;
        }

        boolean cancelled() {
            return cancelled;
        }
    }
}
