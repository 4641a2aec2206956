package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Two lane owners free a slot each at once, as when the dispatcher runs empty ({@code release(1, true)}): the intake
 * must hand both credits to the source, in {@code request} calls that never overlap.
 *
 * <p>The intake is built directly, with a producer side that does nothing, a budget of 8 and a started subscription
 * whose initial demand (8) is not counted; requests that come due during the first one would continue on the caller. r1: demand requested by the two releases. r2: 1 if two {@code request} calls overlapped.
 */
@JCStressTest
@Description("concurrent release(1, true): exactly the released credits are requested, in serialized requests")
@Outcome(id = "2, 0", expect = ACCEPTABLE, desc = "both credits requested (in one call or two), calls serialized")
@Outcome(id = "[01], .*", expect = FORBIDDEN, desc = "a released credit was never requested: the source may stall")
@Outcome(id = "([3-9]|[1-9][0-9]+), .*", expect = FORBIDDEN, desc = "more requested than released: the bound breaks")
@Outcome(id = ".*, 1", expect = FORBIDDEN, desc = "two request calls overlapped (Reactive Streams rule 2.7)")
@Outcome(expect = FORBIDDEN, desc = "unexpected outcome")
@State
public class IntakeConcurrentReleases {
    static final int BUDGET = 8;

    private final ManualSource.Demand demand = new ManualSource.Demand();
    private final Intake<String> intake = IntakeConcurrentReleases.started(demand);

    @Actor
    public void firstOwner() {
        intake.release(1, true);
    }

    @Actor
    public void secondOwner() {
        intake.release(1, true);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = (int) (demand.requested() - BUDGET);
        r.r2 = demand.overlapped() ? 1 : 0;
    }

    /** An intake with a budget of {@value #BUDGET} (batches of 2), subscribed and started: 8 requested. */
    static Intake<String> started(ManualSource.Demand demand) {
        Intake<String> intake = idle();
        intake.onSubscribe(demand);
        intake.start(Runnable::run);
        return intake;
    }

    /** An intake with a budget of {@value #BUDGET} whose producer side does nothing. */
    static Intake<String> idle() {
        // these checks deliver nothing: the producer side is never given an exchange
        return new Intake<>(new CountingProducer(), error -> {}, Runnable::run, BUDGET);
    }
}
