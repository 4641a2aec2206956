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
 * The source's {@code onSubscribe} arriving on its own thread (a source subscribed on another scheduler) while the
 * dispatcher starts: whichever comes second opens the demand, and it is opened once, with the budget.
 *
 * <p>The intake is built directly with a producer side that does nothing and a budget of 8; requests that come due
 * during the first one would continue on the thread that opened the demand. r1: demand requested in all. r2: 1 if two
 * {@code request} calls overlapped.
 */
@JCStressTest
@Description("onSubscribe racing with start: the initial demand is the budget, requested once")
@Outcome(id = "8, 0", expect = ACCEPTABLE, desc = "the budget was requested once")
@Outcome(id = "16, .*", expect = FORBIDDEN, desc = "both opened the demand: twice the budget may be admitted")
@Outcome(id = "0, .*", expect = FORBIDDEN, desc = "neither opened the demand: the dispatcher never receives anything")
@Outcome(id = ".*, 1", expect = FORBIDDEN, desc = "two request calls overlapped (Reactive Streams rule 2.7)")
@Outcome(expect = FORBIDDEN, desc = "unexpected outcome")
@State
public class IntakeSubscribeVsStart {
    private final ManualSource.Demand demand = new ManualSource.Demand();
    private final Intake<String> intake = IntakeConcurrentReleases.idle();

    @Actor
    public void source() {
        intake.onSubscribe(demand);
    }

    @Actor
    public void start() {
        intake.start(Runnable::run);
    }

    @Arbiter
    public void arbiter(II_Result r) {
        r.r1 = (int) demand.requested();
        r.r2 = demand.overlapped() ? 1 : 0;
    }
}
