package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIII_Result;

/**
 * A keyed lane's retirement: the intake offers envelope 2 while the owner finishes envelope 1, lets go and retires the
 * lane ({@link Lane#tryRetire}), as {@code LaneRegistry.Keyed.emptied} does.
 *
 * <p>The intake acts as {@code AggregateDispatcher.enqueue}: an offer that returns {@link Lane#RETIRED} goes to a fresh
 * lane of the same key; an offer that returns 0 makes the intake the owner, and it drains the lane and then tries to
 * retire it in turn.
 *
 * <p>r1: where the offer went: {@value #BEHIND_OWNER} counted behind the owner (the offer returned 1 or more), {@value
 * #TOOK_LIVE_LANE} counted in the live lane, which it then owned (0), {@value #FRESH_LANE} refused as retired and owned
 * in a fresh lane (RETIRED, then 0), {@value #LOST} refused by the fresh lane too. r2, r3: the envelopes the owner and
 * the intake polled, as digits (0 = none, {@value LaneOwner#POLL_FAILED} = the count promised an envelope that is not
 * there). r4, r5: the owner's and the intake's {@code tryRetire()} of the raced lane: 1 retired, 0 refused or not
 * tried.
 */
@JCStressTest
@Description(
        "offer racing with tryRetire: the offer is counted in the live lane and that retire fails, or the offer"
                + " sees RETIRED and the envelope goes to a fresh lane; never both, never neither; the emptied lane retires once")
@Outcome(
        id = "1, 2, 0, 1, 0",
        expect = ACCEPTABLE,
        desc = "offer counted behind the owner: it drained 2, then retired the emptied lane")
@Outcome(
        id = "2, 0, 2, 0, 1",
        expect = ACCEPTABLE,
        desc = "offer between the owner's completion and its retire: that retire failed; the intake took the live lane,"
                + " drained 2 and retired it")
@Outcome(
        id = "2, 0, 2, 1, 0",
        expect = ACCEPTABLE,
        desc = "offer between the owner's completion and its retire, which came only after the intake had drained 2 and"
                + " let go: the idle lane retired once")
@Outcome(
        id = "3, 0, 2, 1, 0",
        expect = ACCEPTABLE,
        desc = "retire first: the offer saw RETIRED and envelope 2 went to a fresh lane")
@Outcome(
        id = "[12], .*, .*, 1, 1",
        expect = FORBIDDEN,
        desc = "the lane retired twice: a retire succeeded while the other owner's envelope was counted")
@Outcome(
        id = ".*, .*, 9, .*",
        expect = FORBIDDEN,
        desc = "both: the offer was counted in the lane and the retire overwrote its count")
@Outcome(
        id = "3, .*, .*, 0, .*",
        expect = FORBIDDEN,
        desc = "neither: the offer saw RETIRED although no retire succeeded")
@Outcome(
        id = "[12], .*, .*, 0, 0",
        expect = FORBIDDEN,
        desc = "the emptied lane never retired: its registry entry leaks")
@Outcome(id = "4, .*", expect = FORBIDDEN, desc = "the fresh lane did not make the intake its owner")
@Outcome(expect = FORBIDDEN, desc = "envelope 2 lost or drained twice")
@State
public class LaneOfferVsRetire {
    static final int BEHIND_OWNER = 1;
    static final int TOOK_LIVE_LANE = 2;
    static final int FRESH_LANE = 3;
    static final int LOST = 4;

    private final Lane<String> lane = new Lane<>("order-1", LaneOwner.NO_RUNNER);
    private final Envelope<String> second = StressExchange.envelope(2);
    private int offer;
    private int ownerPolled;
    private int intakePolled;
    private boolean ownerRetired;
    private boolean intakeRetired;

    public LaneOfferVsRetire() {
        lane.offer(StressExchange.envelope(1)); // returned 0: the owner actor owns the lane
        LaneOwner.takeFirst(lane); // and is handling envelope 1
    }

    @Actor
    public void intake() {
        int before = lane.offer(second);
        if (before == Lane.RETIRED) {
            Lane<String> fresh = new Lane<>(lane.key, LaneOwner.NO_RUNNER);
            if (fresh.offer(second) == 0) {
                offer = FRESH_LANE;
                intakePolled = LaneOwner.drainFromStart(fresh);
            } else {
                offer = LOST;
            }
        } else if (before == 0) {
            offer = TOOK_LIVE_LANE;
            intakePolled = LaneOwner.drainFromStart(lane);
            intakeRetired = lane.tryRetire();
        } else {
            offer = BEHIND_OWNER;
        }
    }

    @Actor
    public void owner() {
        ownerPolled = LaneOwner.finishAndDrain(lane); // envelope 1, the one counted, is finished
        ownerRetired = lane.tryRetire();
    }

    @Arbiter
    public void arbiter(IIIII_Result r) {
        r.r1 = offer;
        r.r2 = ownerPolled;
        r.r3 = intakePolled;
        r.r4 = ownerRetired ? 1 : 0;
        r.r5 = intakeRetired ? 1 : 0;
    }
}
