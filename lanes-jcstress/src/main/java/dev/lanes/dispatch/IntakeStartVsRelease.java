package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIIII_Result;

/**
 * {@code Intake.start(elsewhere)} on an intake already subscribed, racing with a worker that frees the slots of what the
 * start's first request admitted: start opens demand and makes the first request, in which the synchronous source
 * emits; the worker's releases can land while that request, or the start's hand-off of what came due meanwhile to
 * {@code elsewhere}, is still running. See {@link IntakeOpening} for the source, the worker and the results.
 */
@JCStressTest
@Description("start(elsewhere) racing with a worker's release: the source gets exactly the budget at first, never"
        + " more outstanding than the budget, and every freed slot back once")
@Outcome(
        id = "2, 0, 2, 0, 0, [012], [01]",
        expect = ACCEPTABLE,
        desc = "the budget requested once at first; every freed slot requested again, serially (on elsewhere if it came"
                + " due during the first request)")
@Outcome(id = "([013-9]|\\d\\d+), .*", expect = FORBIDDEN, desc = "the first request was not the budget")
@Outcome(id = "\\d+, 1, .*", expect = FORBIDDEN, desc = "more demand outstanding than the budget")
@Outcome(
        id = "\\d+, \\d+, [01], .*",
        expect = FORBIDDEN,
        desc = "a freed slot was never requested again: the source may stall")
@Outcome(id = "\\d+, \\d+, \\d+, 1, .*", expect = FORBIDDEN, desc = "two request calls overlapped (rule 2.7)")
@Outcome(expect = FORBIDDEN, desc = "an emitted exchange never reached the lanes, or more requested than freed")
@State
public class IntakeStartVsRelease {
    private final IntakeOpening intake = new IntakeOpening();

    public IntakeStartVsRelease() {
        intake.subscribe();
    }

    @Actor
    public void start() {
        intake.start();
    }

    @Actor
    public void worker() {
        intake.work();
    }

    @Arbiter
    public void arbiter(IIIIIII_Result r) {
        intake.arbiter(r);
    }
}
