package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
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
 * A delivery on a producer's thread racing with a worker's request, which holds the producer side while it runs: once
 * {@code onNext} returned, the exchange is either staged (it would hold its lease) or the intake says it {@linkplain
 * Intake#holdsUnleasedWork() holds unleased work}, read first. That is what the runtime's quiet check relies on when
 * the publisher's own lease closes right after its {@code onNext}: it never sees no lease and no unleased work while the
 * exchange waits in the intake's queue.
 *
 * <p>The source is asynchronous: its {@code request(n)} emits nothing (the delivery is the producer's). Results: r1 1
 * if, right after {@code onNext} returned, the intake said it held no unleased work and the exchange was not staged;
 * r2 the exchange staged once the arbiter ran the drains handed over (1); r3 1 if the intake still said it held
 * unleased work at the end.
 */
@JCStressTest
@Description("a delivery queued while another thread holds the producer side is seen as unleased work until staged")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "seen until staged; staged once; nothing held at the end")
@Outcome(id = "1, .*", expect = FORBIDDEN, desc = "queued, not staged and not seen: a runtime could close admission")
@Outcome(expect = FORBIDDEN, desc = "not staged exactly once, or unleased work left at the end")
@State
public class IntakeQueuedDeliverySeen {
    private final CountingProducer producer = new CountingProducer();
    private final Queue<Runnable> elsewhere = new ConcurrentLinkedQueue<>();
    private final Intake<String> intake = new Intake<>(producer, error -> {}, Runnable::run, 1);
    private final StressExchange delivered = new StressExchange(1);

    public IntakeQueuedDeliverySeen() {
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

    /** Delivers on its own thread, as a sink with demand does, then looks as the runtime's quiet check would. */
    @Actor
    public void producer(III_Result r) {
        intake.onNext(delivered);
        boolean seen = intake.holdsUnleasedWork();
        r.r1 = seen || producer.staged.get() > 0 ? 0 : 1;
    }

    @Arbiter
    public void arbiter(III_Result r) {
        for (@Nullable Runnable task; (task = elsewhere.poll()) != null; ) {
            task.run();
        }
        r.r2 = producer.staged.get();
        r.r3 = intake.holdsUnleasedWork() ? 1 : 0;
    }
}
