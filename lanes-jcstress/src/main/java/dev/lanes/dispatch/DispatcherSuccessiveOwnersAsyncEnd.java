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
 * Like {@link DispatcherSuccessiveOwners}, but the handler of exchange 1 is asynchronous: the lane's first run
 * subscribed it and left the lane (before the race), and the first owner's actor is the thread on which it ends, which
 * finishes exchange 1 and lets go outside a drain ({@code handlerEnded}, {@code advance}), or, if the producer's
 * offers were counted first, hands the lane on to a worker. The producer delivers 2 and 3 meanwhile; an offer that
 * finds the lane idle makes it the next owner, which drains at once.
 *
 * <p>Results: see {@link SuccessiveOwners}; r8 counts the lane tasks after the first, the hand-on of the thread where
 * the handler ended included.
 */
@JCStressTest
@Description("an asynchronous handler's end letting go of its lane while the producer's offer makes the next owner:"
        + " every exchange handled once, in order, and the lane's accounting exact")
@Outcome(
        id = "123, 111, 0, 0, 0, 0, 0, 1",
        expect = ACCEPTABLE,
        desc = "one owner after the handler's end: the one it handed the lane to, or the producer's")
@Outcome(
        id = "123, 111, 0, 0, 0, 0, 0, 2",
        expect = ACCEPTABLE,
        desc = "the lane was let go twice after the handler's end: the producer became its owner twice")
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
public class DispatcherSuccessiveOwnersAsyncEnd {
    private final SuccessiveOwners lane = new SuccessiveOwners(true);

    public DispatcherSuccessiveOwnersAsyncEnd() {
        lane.runFirstOwner(); // handles 1: its handler is subscribed and goes on
    }

    @Actor
    public void handlerEnds() {
        lane.endFirst();
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
