package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

/**
 * A whole dispatcher: {@code forceStop()} racing with a worker that starts an exchange whose handler never ends by
 * itself (an asynchronous handler still in flight). Only the stop can settle it, and the stop must cancel the handler if
 * its {@code Mono} was subscribed. Before the race the exchange is admitted and its lane handed off ({@link
 * StressDispatchers#handingOff}); the worker actor runs the lane, as a worker thread of the aggregate type's scheduler
 * would, while the other actor force-stops the dispatcher. Cancellations run inline on the stopping thread.
 *
 * <p>The handler assembles its {@code Mono} slowly: it returns it only once its exchange was rejected, or after a
 * bounded spin (as a handler that validates or looks something up first). So the race that matters, the stop's
 * rejection against the subscription of the handler, is run at every iteration in which the handler was called before
 * the stop, instead of at one in millions.
 *
 * <p>r1: the exchange's settlement ({@link StressExchange#settlement()}: 2 rejected, 1 acknowledged, 0 never, 3 more
 * than once). r2: handler subscriptions. r3: 1 if the handler was cancelled (once or more: a second cancel is a no-op,
 * Reactive Streams rule 3.7), else 0.
 */
@JCStressTest
@Description("forceStop racing with a worker starting an asynchronous handler: the exchange is rejected once, and a"
        + " handler that was subscribed is cancelled")
@Outcome(
        id = "2, 0, 0",
        expect = ACCEPTABLE,
        desc = "stop before the attempt started, or before the handler's Mono was subscribed: rejected, never"
                + " subscribed")
@Outcome(id = "2, 1, 1", expect = ACCEPTABLE, desc = "stop while the handler ran: rejected and the handler cancelled")
@Outcome(
        id = "2, 1, 0",
        expect = FORBIDDEN,
        desc = "the handler was subscribed and never cancelled although the stop rejected its exchange")
@Outcome(id = "[013], .*", expect = FORBIDDEN, desc = "not rejected exactly once (only the stop can settle it)")
@Outcome(expect = FORBIDDEN, desc = "subscribed twice, or cancelled without a subscription")
@State
public class DispatcherForceStopVsAsyncHandler {
    /** A bound on the handler's wait for the stop, so an iteration never hangs whatever the engine does. */
    private static final int MAX_ASSEMBLY_SPINS = 1 << 16;

    private final AtomicInteger subscribed = new AtomicInteger();
    private final AtomicInteger cancelled = new AtomicInteger();
    private final ManualSource source = new ManualSource();
    private final StressExchange exchange = new StressExchange(1);
    private final StressDispatchers.HandOff worker = new StressDispatchers.HandOff();
    private final AggregateDispatcher<String> dispatcher = StressDispatchers.handingOff(
            source,
            handled -> {
                assembleUntilRejected((StressExchange) handled);
                return new InFlight(subscribed, cancelled);
            },
            worker,
            1);

    public DispatcherForceStopVsAsyncHandler() {
        source.deliver(exchange);
        worker.admitDelivered(); // admitted: its lane waits for the worker
    }

    @Actor
    public void worker() {
        worker.runLane();
    }

    @Actor
    public void forceStop() {
        dispatcher.forceStop();
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r1 = exchange.settlement();
        r.r2 = subscribed.get();
        r.r3 = cancelled.get() > 0 ? 1 : 0;
    }

    /** The handler's work before it returns its {@code Mono}: until its exchange is settled, within a bound. */
    private static void assembleUntilRejected(StressExchange exchange) {
        for (int i = 0; i < MAX_ASSEMBLY_SPINS && exchange.settlement() == StressExchange.UNSETTLED; i++) {
            Thread.onSpinWait();
        }
    }

    /** A handler that never ends by itself: counts its subscriptions and cancellations. */
    private static final class InFlight extends Mono<Void> {
        private final AtomicInteger subscribed;
        private final AtomicInteger cancelled;

        InFlight(AtomicInteger subscribed, AtomicInteger cancelled) {
            this.subscribed = subscribed;
            this.cancelled = cancelled;
        }

        @Override
        public void subscribe(CoreSubscriber<? super Void> actual) {
            subscribed.incrementAndGet();
            actual.onSubscribe(new Subscription() {
                @Override
                public void request(long n) {}

                @Override
                public void cancel() {
                    cancelled.incrementAndGet();
                }
            });
        }
    }
}
