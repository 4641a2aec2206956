package dev.lanes.flow;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxOperator;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/** {@link IntakeGate#admit}: relays demand while the gate is open, a window at a time; cancels the source once shut. */
final class GatedFlux<T> extends FluxOperator<T, T> {
    private final IntakeGate gate;

    GatedFlux(Flux<T> source, IntakeGate gate) {
        super(source);
        this.gate = gate;
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
        source.subscribe(new GatedSubscriber<>(actual, gate));
    }

    /**
     * Downstream demand accumulates in {@code requested}; {@code drain} relays it upstream while the gate is open and
     * fewer than half a window are outstanding, topping up to a window. One drain runs at a time ({@code wip}); a
     * signal that comes meanwhile makes it loop once more.
     */
    static final class GatedSubscriber<T> implements CoreSubscriber<T>, Subscription, Runnable {
        private final CoreSubscriber<? super T> actual;
        private final IntakeGate gate;
        private final AtomicLong requested = new AtomicLong();
        private final AtomicInteger outstanding = new AtomicInteger();
        private final AtomicInteger wip = new AtomicInteger();
        private @Nullable Subscription upstream;
        private volatile boolean cancelled;

        GatedSubscriber(CoreSubscriber<? super T> actual, IntakeGate gate) {
            this.actual = actual;
            this.gate = gate;
        }

        @Override
        public Context currentContext() {
            return actual.currentContext();
        }

        @Override
        public void onSubscribe(Subscription subscription) {
            if (Operators.validate(upstream, subscription)) {
                upstream = subscription;
                gate.listen(this);
                actual.onSubscribe(this);
            }
        }

        @Override
        public void onNext(T value) {
            outstanding.decrementAndGet();
            actual.onNext(value);
            drain();
        }

        @Override
        public void onError(Throwable error) {
            gate.unlisten(this);
            actual.onError(error);
        }

        @Override
        public void onComplete() {
            gate.unlisten(this);
            actual.onComplete();
        }

        @Override
        public void request(long n) {
            if (Operators.validate(n)) {
                requested.getAndUpdate(current -> Operators.addCap(current, n));
                drain();
            }
        }

        @Override
        public void cancel() {
            cancelled = true;
            gate.unlisten(this);
            Subscription subscription = upstream;
            if (subscription != null) {
                subscription.cancel();
            }
        }

        /** The gate opened. */
        @Override
        public void run() {
            drain();
        }

        private void drain() {
            if (wip.getAndIncrement() != 0) {
                return;
            }
            int missed = 1;
            do {
                relay();
                missed = wip.addAndGet(-missed);
            } while (missed != 0);
        }

        private void relay() {
            Subscription subscription = upstream;
            if (subscription != null && !cancelled && gate.isShut()) {
                // no completion downstream (it could race an onNext): the source stops, what it holds is discarded
                cancel();
                return;
            }
            while (subscription != null && !cancelled && gate.isOpen()) {
                long wanted = requested.get();
                int ahead = outstanding.get();
                if (wanted == 0 || ahead > IntakeGate.WINDOW / 2) {
                    return;
                }
                long n = Math.min(wanted, IntakeGate.WINDOW - ahead);
                if (wanted != Long.MAX_VALUE) {
                    requested.addAndGet(-n);
                }
                outstanding.addAndGet((int) n);
                subscription.request(n);
            }
        }
    }
}
