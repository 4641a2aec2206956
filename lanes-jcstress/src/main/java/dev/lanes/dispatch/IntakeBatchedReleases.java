package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Two lane owners free a slot each at once while the dispatcher is still busy ({@code release(1, false)}): credits
 * gather until a batch (a quarter of the budget, here 2) is complete, and the release that completes it requests the
 * whole batch. Then the dispatcher runs empty ({@code release(0, true)} in the arbiter), which requests what is left.
 *
 * <p>The intake is built as in {@link IntakeConcurrentReleases}, its initial demand not counted. r1: demand requested
 * by the two releases. r2: demand requested in all, after the arbiter's release. r3: 1 if two {@code request} calls
 * overlapped.
 */
@JCStressTest
@Description("concurrent release(1, false) with batches of 2: the completed batch is requested once, never more than"
        + " released")
@Outcome(id = "2, 2, 0", expect = ACCEPTABLE, desc = "the release that completed the batch requested both credits")
@Outcome(id = "0, .*", expect = FORBIDDEN, desc = "a complete batch was left unrequested while the dispatcher was busy")
@Outcome(id = "1, .*", expect = FORBIDDEN, desc = "a batch was requested before it was complete")
@Outcome(
        id = "([3-9]|[1-9][0-9]+), .*|.*, ([3-9]|[1-9][0-9]+), .*",
        expect = FORBIDDEN,
        desc = "more requested than released: the bound breaks")
@Outcome(id = ".*, [01], .*", expect = FORBIDDEN, desc = "a released credit was lost: never requested")
@Outcome(id = ".*, 1", expect = FORBIDDEN, desc = "two request calls overlapped (Reactive Streams rule 2.7)")
@Outcome(expect = FORBIDDEN, desc = "unexpected outcome")
@State
public class IntakeBatchedReleases {
    private final ManualSource.Demand demand = new ManualSource.Demand();
    private final Intake<String> intake = IntakeConcurrentReleases.started(demand);

    @Actor
    public void firstOwner() {
        intake.release(1, false);
    }

    @Actor
    public void secondOwner() {
        intake.release(1, false);
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r1 = (int) (demand.requested() - IntakeConcurrentReleases.BUDGET);
        intake.release(0, true);
        r.r2 = (int) (demand.requested() - IntakeConcurrentReleases.BUDGET);
        r.r3 = demand.overlapped() ? 1 : 0;
    }
}
