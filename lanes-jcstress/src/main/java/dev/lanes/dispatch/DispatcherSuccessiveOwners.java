package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIIIII_Result;

/**
 * Two owners of one lane in sequence, through a whole dispatcher: the first owner (a worker running the lane) handles
 * exchange 1, whose handler ends at once, finishes it and lets go ({@link Lane#complete} returns 0, in {@code
 * drainHeld}); meanwhile the producer delivers 2 and 3, and an offer that finds the lane idle makes the producer the
 * next owner, which drains at once. The first owner must not write an owner field ({@code finished}, {@code current})
 * after its count reached 0: the next owner's accounting would be clobbered (a count left without an owner, or an
 * envelope handled twice). So the next owner drains exactly what was offered and the lane ends at a count of 0.
 *
 * <p>Results: see {@link SuccessiveOwners}.
 */
@JCStressTest
@Description("an owner letting go while the producer's offer makes the next owner, which drains at once: every exchange"
        + " handled once, in order, and the lane's accounting exact")
@Outcome(
        id = "123, 111, 0, 0, 0, 0, 0, 0",
        expect = ACCEPTABLE,
        desc = "both offers counted before the first owner let go: it drained all three")
@Outcome(
        id = "123, 111, 0, 0, 0, 0, 0, 1",
        expect = ACCEPTABLE,
        desc =
                "the first owner let go after 1 or 2; the producer's offer made it the next owner, which drained the rest")
@Outcome(
        id = "123, 111, 0, 0, 0, 0, 0, 2",
        expect = ACCEPTABLE,
        desc = "the first owner let go after 1, the producer drained 2 and let go, then drained 3 as a third owner")
@Outcome(id = "\\d+, \\d+, [1-9]\\d*, .*", expect = FORBIDDEN, desc = "a count left without an owner: the lane stalls")
@Outcome(id = "\\d+, \\d+, -\\d+, .*", expect = FORBIDDEN, desc = "the count went below 0: subtracted twice")
@Outcome(
        id = "\\d+, \\d+, \\d+, [1-9]\\d*, .*",
        expect = FORBIDDEN,
        desc = "an owner's finished count left behind after it let go")
@Outcome(
        id = "\\d+, \\d+, \\d+, \\d+, 1, .*",
        expect = FORBIDDEN,
        desc = "the lane's current envelope left set after its owners let go")
@Outcome(id = ".*, [13], \\d+, \\d+", expect = FORBIDDEN, desc = "two handlers at once: two owners")
@Outcome(
        id = ".*, 2, \\d+, \\d+",
        expect = FORBIDDEN,
        desc = "an owner's poll found no envelope where the count promised one: its accounting was clobbered")
@Outcome(expect = FORBIDDEN, desc = "an exchange lost, handled twice or out of order, or its slot not freed")
@State
public class DispatcherSuccessiveOwners {
    private final SuccessiveOwners lane = new SuccessiveOwners(false);

    @Actor
    public void firstOwner() {
        lane.runFirstOwner();
        lane.runHandedOff();
    }

    @Actor
    public void producer() {
        lane.produce();
    }

    @Arbiter
    public void arbiter(IIIIIIII_Result r) {
        lane.arbiter(r);
    }
}
