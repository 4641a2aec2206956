package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.lanes.api.AggregateId;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIIIII_Result;

/**
 * Like {@link LaneWriterPublishVsRetire}, but the burst routes envelopes 2 and 3 of the key in two passes ({@value
 * LaneWriter#BATCH} exchanges apart: 2 and {@value #OTHERS} exchanges of other keys, then 3), so the owner's
 * retirement can land between them: 2 is staged in the raced lane and 3 in a fresh lane the producer made after the
 * raced one left the table. At publication the raced lane is found retired and its stage goes in front of the fresh
 * lane's ({@link Lane#moveStageTo}): 2 must still come before 3.
 *
 * <p>r1, r2: the envelopes of the key the owner and the producer drained, as digits (see {@link
 * LaneWriterPublishVsRetire}). r3: where 2 and 3 were routed: {@value #BOTH_RACED} both to the raced lane, {@value
 * #SPLIT} 2 to the raced lane and 3 to another, {@value #BOTH_FRESH} both to one fresh lane, {@value #OTHER_ROUTES}
 * otherwise. r4: where the chain went ({@link LaneWriterPublishVsRetire#where}: 0 counted in the raced lane, 1 moved to
 * the successor, 2 never reached the raced lane). r5: lanes of the other keys drained, each of its one envelope. r6:
 * lanes left in the table. r7: 1 if the raced lane has retired. r8: exchanges refused, and other lanes drained wrong.
 */
@JCStressTest
@Description("a chain routed across two passes while its lane retires: the part staged in the retired lane moves in"
        + " front of the part staged in the successor, and the key's envelopes are drained once, in order")
@Outcome(
        id = "23, 0, 0, 0, 31, 0, 1, 0",
        expect = ACCEPTABLE,
        desc = "both routed to the live lane and counted behind the owner, which drained them")
@Outcome(
        id = "0, 23, 0, 1, 31, 0, 1, 0",
        expect = ACCEPTABLE,
        desc = "both routed to the raced lane, which retired before the offer: moved to the successor")
@Outcome(
        id = "0, 23, 1, 1, 31, 0, 1, 0",
        expect = ACCEPTABLE,
        desc = "split: 2 in the raced lane, 3 in the successor made after it left the table; 2 moved in front of 3")
@Outcome(
        id = "0, 23, 2, 2, 31, 0, 1, 0",
        expect = ACCEPTABLE,
        desc = "the raced lane had left the table before the first pass: both went to a fresh lane")
@Outcome(id = ".*, 32, .*|32, .*|3, 2, .*", expect = FORBIDDEN, desc = "envelope 3 was drained before 2: order broken")
@Outcome(id = "0, 0, .*", expect = FORBIDDEN, desc = "the key's envelopes were lost")
@Outcome(
        id = "\\d+, \\d+, 1, 0, .*",
        expect = FORBIDDEN,
        desc = "split, yet the raced lane counted 2: it had left the table without retiring")
@Outcome(expect = FORBIDDEN, desc = "drained twice or partly, a lane left in the table, an unretired lane, a refusal")
@State
public class LaneWriterSplitChainVsRetire {
    static final int OTHERS = LaneWriter.BATCH - 1;
    static final int BOTH_RACED = 0;
    static final int SPLIT = 1;
    static final int BOTH_FRESH = 2;
    static final int OTHER_ROUTES = 3;

    private static final AggregateId[] OTHER_IDS = new AggregateId[OTHERS];

    static {
        for (int i = 0; i < OTHERS; i++) {
            OTHER_IDS[i] = AggregateId.of(StressExchange.ORDER, "other-" + i);
        }
    }

    private final KeyedLanes<String> lanes = new KeyedLanes<>(LaneOwner.NO_RUNNER);
    private final StressAdmission admission = new StressAdmission(lanes, StressExchange.ORDER_1.id());
    private final LaneWriter<String> writer = new LaneWriter<>(lanes, admission);
    private final Lane<String> lane;
    private final Envelope<String> first = StressExchange.envelope(1);
    private int ownerPolled;

    public LaneWriterSplitChainVsRetire() {
        String key = StressExchange.ORDER_1.id();
        lane = lanes.laneOf(key, key.hashCode());
        lane.stage(first);
        lane.offerStaged(); // returned 0: the owner actor owns the lane
        LaneOwner.takeFirst(lane); // and is handling envelope 1
    }

    @Actor
    public void producer() {
        writer.stage(new StressExchange(2));
        for (AggregateId other : OTHER_IDS) {
            writer.stage(new StressExchange(7, other)); // the 32nd routes the first pass
        }
        writer.stage(new StressExchange(3));
        writer.flush(); // routes 3, then offers every lane's stage
    }

    @Actor
    public void owner() {
        ownerPolled = LaneOwner.finishAndDrain(lane, lanes::complete);
    }

    @Arbiter
    public void arbiter(IIIIIIII_Result r) {
        r.r1 = ownerPolled;
        r.r2 = admission.keyPolled();
        r.r3 = routes();
        r.r4 = LaneWriterPublishVsRetire.where(first, admission.made(0));
        r.r5 = admission.othersDrained();
        r.r6 = LaneOwner.lanesIn(lanes);
        r.r7 = lane.isRetired() ? 1 : 0;
        r.r8 = admission.refused();
    }

    private int routes() {
        Lane<String> second = admission.stagedIn(0);
        Lane<String> third = admission.stagedIn(1);
        if (second == lane) {
            return third == lane ? BOTH_RACED : SPLIT;
        }
        return second == third ? BOTH_FRESH : OTHER_ROUTES;
    }
}
