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
 * The lane's work-in-progress hand-off: the intake offers envelopes 2 and 3 while the owner finishes envelope 1.
 *
 * <p>Before the race the lane (a hashed one: it never retires) holds envelope 1, counted and polled by its owner. The
 * intake actor, the producer side, stages and offers 2, then stages and offers 3 ({@link Lane#stage}, {@link
 * Lane#offerStaged}: two publications, one link and one count each); if an offer returned 0 it owns the lane and drains
 * it (where the dispatcher would hand the lane to a worker). The owner actor finishes 1 and drains on while {@link
 * Lane#complete} says work remains. Both drain as the dispatcher does ({@link LaneOwner}).
 *
 * <p>r1, r2: the envelopes the owner and the intake polled, in order, as digits (23 = envelope 2 then 3; 0 = none;
 * {@value LaneOwner#POLL_FAILED} = a poll found no envelope where the count promised one, {@value LaneOwner#RAN_AWAY} = the
 * count never came back to 0). r3: envelopes still counted at the end.
 */
@JCStressTest
@Description("offer racing with complete: every envelope is drained once, in order, by exactly one owner, and no count"
        + " is left without an owner")
@Outcome(
        id = "23, 0, 0",
        expect = ACCEPTABLE,
        desc = "both offers counted before the owner finished 1: it kept the lane and drained 2 and 3")
@Outcome(
        id = "2, 3, 0",
        expect = ACCEPTABLE,
        desc = "the owner drained 2 and let go; the offer of 3 found the lane idle and the intake drained it")
@Outcome(
        id = "0, 23, 0",
        expect = ACCEPTABLE,
        desc = "the owner let go first; the offer of 2 made the intake the owner, and it drained 2 and 3")
@Outcome(
        id = "([89], .*|.*, [89], .*)",
        expect = FORBIDDEN,
        desc = "a poll found no envelope (one counted before it was linked, or an owner's finished count clobbered by"
                + " the owner before it, which subtracted less), or the count ran away")
@Outcome(
        id = ".*, .*, [1-9]",
        expect = FORBIDDEN,
        desc = "work left counted with no owner: the lane stalls (a lost wake-up)")
@Outcome(
        id = "(0, [23]|2, 0|0, 0), 0",
        expect = FORBIDDEN,
        desc = "an envelope was lost: counted over, or never drained although the count is back to 0")
@Outcome(id = "(2, 23|23, [23]+|3, 23), .*", expect = FORBIDDEN, desc = "two owners: an envelope was drained twice")
@Outcome(id = "(32|3), .*|.*, 32, .*", expect = FORBIDDEN, desc = "envelope 3 was drained before 2: order broken")
@Outcome(expect = FORBIDDEN, desc = "an envelope lost, drained twice or out of order")
@State
public class LaneOfferVsComplete {
    private final Lane<String> lane = new Lane<>("order-1", LaneOwner.NO_RUNNER);
    private final Envelope<String> second = StressExchange.envelope(2);
    private final Envelope<String> third = StressExchange.envelope(3);
    private int ownerPolled;
    private int intakePolled;

    public LaneOfferVsComplete() {
        lane.stage(StressExchange.envelope(1));
        lane.offerStaged(); // returned 0: the owner actor owns the lane
        LaneOwner.takeFirst(lane); // and is handling envelope 1
    }

    @Actor
    public void intake() {
        boolean owns = offer(second) == 0;
        owns |= offer(third) == 0;
        if (owns) {
            intakePolled = LaneOwner.drainFromStart(lane, LaneOwner.HASHED);
        }
    }

    @Actor
    public void owner() {
        ownerPolled = LaneOwner.finishAndDrain(lane, LaneOwner.HASHED); // envelope 1, the one counted, is finished
    }

    private int offer(Envelope<String> envelope) {
        lane.stage(envelope);
        return lane.offerStaged();
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r1 = ownerPolled;
        r.r2 = intakePolled;
        r.r3 = lane.depth();
    }
}
