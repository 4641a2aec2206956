package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.lanes.lifecycle.ActivityLease;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.reactivestreams.Subscription;

/**
 * A delivery on a producer's thread racing with a worker's request: once {@code onNext} returned, the exchange is
 * either staged or covered by an activity lease of whoever holds the producer side (the request's caller, or the drain
 * the delivering thread handed over), so a runtime whose only other lease was the publisher's (closed right after its
 * {@code onNext}) cannot see no open lease while the exchange waits in the intake's queue.
 *
 * <p>The source is asynchronous: its {@code request(n)} emits nothing (the delivery is the producer's). Results: r1 1
 * if, right after {@code onNext} returned, the producer saw neither an open hold (read first) nor its exchange staged;
 * r2 the exchange staged once the arbiter ran the drains handed over (1); r3 holds still open at the end (0).
 */
@JCStressTest
@Description("a delivery queued while another thread holds the producer side is covered by that holder's lease")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "covered until staged; staged once; every hold closed")
@Outcome(id = "1, .*", expect = FORBIDDEN, desc = "queued with no lease open: a runtime could close admission")
@Outcome(expect = FORBIDDEN, desc = "not staged exactly once, or a hold left open")
@State
public class IntakeQueuedDeliveryHeldOpen {
    private final AtomicInteger holds = new AtomicInteger();
    private final AtomicInteger staged = new AtomicInteger();
    private final Queue<Runnable> elsewhere = new ConcurrentLinkedQueue<>();
    private final Intake<String> intake = new Intake<>(new Holding(), error -> {}, Runnable::run, 1);
    private final StressExchange delivered = new StressExchange(1);

    public IntakeQueuedDeliveryHeldOpen() {
        intake.onSubscribe(new Subscription() {
            @Override
            public void request(long n) {}

            @Override
            public void cancel() {}
        });
        intake.start(elsewhere::offer); // the first request, here: the budget of 1 is out
    }

    /** Frees a slot with nothing left to settle: its request runs here, holding the producer side meanwhile. */
    @Actor
    public void worker() {
        intake.release(1, true);
    }

    /** Delivers on its own thread, as a sink with demand does, then looks whether its exchange is covered. */
    @Actor
    public void producer(III_Result r) {
        intake.onNext(delivered);
        boolean held = holds.get() > 0;
        r.r1 = held || staged.get() > 0 ? 0 : 1;
    }

    @Arbiter
    public void arbiter(III_Result r) {
        for (@Nullable Runnable task; (task = elsewhere.poll()) != null; ) {
            task.run();
        }
        r.r2 = staged.get();
        r.r3 = holds.get();
    }

    /** Counts holds and what is staged; the hold is a lease that closes once. */
    private final class Holding implements Intake.Producer<String> {
        @Override
        public void stage(MessageExchange<String> exchange) {
            staged.incrementAndGet();
        }

        @Override
        public void flush() {}

        @Override
        public @Nullable ActivityLease holdOpen() {
            return holdRuntimeOpen();
        }

        @Override
        public void closeAgain(@Nullable ActivityLease hold) {
            if (hold != null) {
                hold.close();
            }
        }

        @Override
        public @Nullable ActivityLease holdRuntimeOpen() {
            holds.incrementAndGet();
            AtomicInteger closed = new AtomicInteger();
            return () -> {
                if (closed.getAndIncrement() == 0) {
                    holds.decrementAndGet();
                }
            };
        }
    }
}
