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
 * A keyed lane's retirement: the intake offers envelope 2 while the owner finishes envelope 1 and lets go, which for a
 * keyed lane retires it in the compare-and-set that subtracts its last count ({@link Lane#completeOrRetire} returning
 * 0) and clears its table slot ({@link Lane#leaveHome}), as {@link KeyedLanes#complete} does.
 *
 * <p>The intake acts as {@code LaneWriter.publish} does, one step at a time: it stages envelope 2 in the lane it found
 * for the key and offers it ({@link Lane#offerStaged}); an offer that returns {@link Lane#RETIRED} moves the stage to
 * the key's successor ({@link KeyedLanes#successor}, {@link Lane#moveStageTo}) and offers it there, which makes the
 * intake the successor's owner: it drains the successor, which retires and leaves the table in turn.
 *
 * <p>r1: where the offer went: {@value #BEHIND_OWNER} counted behind the owner (the offer returned 1 or more), {@value
 * #TOOK_LIVE_LANE} counted in the raced lane, which it then owned (0), {@value #MOVED} refused as retired and owned in
 * the successor (RETIRED, then 0), {@value #LOST} refused by the successor too. r2, r3: the envelopes the owner and the
 * intake polled, as digits (0 = none, {@value LaneOwner#POLL_FAILED} = the count promised an envelope that is not
 * there, {@value LaneOwner#RAN_AWAY} = the count never came back to 0). r4: 1 if the raced lane has retired at the end.
 * r5: lanes left in the table at the end (every lane drained: there should be none).
 */
@JCStressTest
@Description("offer racing with the owner's completeOrRetire on a keyed lane: the offer is counted in the live lane or"
        + " sees RETIRED and moves to the successor, never both, never neither; the emptied lanes retire and leave the"
        + " table")
@Outcome(
        id = "1, 2, 0, 1, 0",
        expect = ACCEPTABLE,
        desc = "offer counted behind the owner: it drained 2, then retired the emptied lane")
@Outcome(
        id = "3, 0, 2, 1, 0",
        expect = ACCEPTABLE,
        desc = "retire first: the offer saw RETIRED and envelope 2 went to the successor, which the intake drained and"
                + " retired")
@Outcome(
        id = "2, .*",
        expect = FORBIDDEN,
        desc = "the owner's last subtraction left the keyed lane at 0 instead of retiring it")
@Outcome(id = "4, .*", expect = FORBIDDEN, desc = "the successor did not make the intake its owner")
@Outcome(
        id = "\\d, ([89]|\\d+, [89]), .*",
        expect = FORBIDDEN,
        desc = "both: the offer was counted in the lane and the retire overwrote its count (a poll found nothing), or"
                + " a count ran away")
@Outcome(id = ".*, .*, .*, 0, .*", expect = FORBIDDEN, desc = "the emptied lane never retired: its table slot leaks")
@Outcome(id = ".*, [1-9]", expect = FORBIDDEN, desc = "a lane was left in the table after it emptied")
@Outcome(expect = FORBIDDEN, desc = "envelope 2 lost or drained twice")
@State
public class LaneOfferVsRetire {
    static final int BEHIND_OWNER = 1;
    static final int TOOK_LIVE_LANE = 2;
    static final int MOVED = 3;
    static final int LOST = 4;

    private final KeyedLanes<String> lanes = new KeyedLanes<>(LaneOwner.NO_RUNNER);
    private final Lane<String> lane = lanes.laneOf("order-1", "order-1".hashCode());
    private final Envelope<String> second = StressExchange.envelope(2);
    private int offer;
    private int ownerPolled;
    private int intakePolled;

    public LaneOfferVsRetire() {
        lane.stage(StressExchange.envelope(1));
        lane.offerStaged(); // returned 0: the owner actor owns the lane
        LaneOwner.takeFirst(lane); // and is handling envelope 1
    }

    @Actor
    public void intake() {
        lane.stage(second);
        int before = lane.offerStaged();
        if (before == Lane.RETIRED) {
            Lane<String> successor = lanes.successor(lane);
            lane.moveStageTo(successor);
            if (successor.offerStaged() == 0) {
                offer = MOVED;
                intakePolled = LaneOwner.drainFromStart(successor, lanes::complete);
            } else {
                offer = LOST;
            }
        } else if (before == 0) {
            offer = TOOK_LIVE_LANE;
            intakePolled = LaneOwner.drainFromStart(lane, lanes::complete);
        } else {
            offer = BEHIND_OWNER;
        }
    }

    @Actor
    public void owner() {
        ownerPolled = LaneOwner.finishAndDrain(lane, lanes::complete); // envelope 1, the one counted, is finished
    }

    @Arbiter
    public void arbiter(IIIII_Result r) {
        r.r1 = offer;
        r.r2 = ownerPolled;
        r.r3 = intakePolled;
        r.r4 = lane.isRetired() ? 1 : 0;
        r.r5 = LaneOwner.lanesIn(lanes);
    }
}
