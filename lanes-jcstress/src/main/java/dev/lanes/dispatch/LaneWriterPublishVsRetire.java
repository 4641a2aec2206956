package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIIIII_Result;

/**
 * The producer's publication of a staged chain racing with the owner's retirement of a keyed lane, through the real
 * producer side ({@link LaneWriter} over {@link KeyedLanes}): the producer stages envelopes 2 and 3 of the key in one
 * burst and flushes it, which routes them to the key's lane, links them into one chain and offers it ({@link
 * Lane#offerStaged}), moving it to the key's successor if the lane retired meanwhile ({@link KeyedLanes#successor},
 * {@link Lane#moveStageTo}); meanwhile the owner finishes envelope 1 and lets go, retiring the lane in the
 * compare-and-set that subtracts its last count and clearing its table slot ({@link KeyedLanes#complete}).
 *
 * <p>A lane the publication makes ready is drained by the producer at once ({@link StressAdmission}), where the
 * dispatcher would hand it to a worker.
 *
 * <p>r1, r2: the envelopes the owner and the producer drained, in order, as digits (0 = none, {@value
 * LaneOwner#POLL_FAILED} = the count promised an envelope that is not linked, {@value LaneOwner#RAN_AWAY} = the count
 * never came back to 0). r3: where the chain went: {@value #COUNTED} counted in the raced lane, {@value #MOVED} linked
 * to the raced lane, found retired, and moved to the successor, {@value #FRESH} routed to a fresh lane (the raced one
 * had left the table), {@value #ELSEWHERE} anything else. r4: 1 if the raced lane has retired at the end. r5: lanes left
 * in the table (all emptied: none). r6: exchanges refused.
 */
@JCStressTest
@Description("a staged chain's offer racing with the owner's completeOrRetire on a keyed lane: the chain lands once, in"
        + " the live lane or in the successor, in order, and every emptied lane retires and leaves the table")
@Outcome(
        id = "23, 0, 0, 1, 0, 0",
        expect = ACCEPTABLE,
        desc = "the chain was counted behind the owner, which drained 2 and 3, then retired the lane")
@Outcome(
        id = "0, 23, 1, 1, 0, 0",
        expect = ACCEPTABLE,
        desc =
                "the lane retired between routing and offer: the chain moved to the successor, which the producer drained")
@Outcome(
        id = "0, 23, 2, 1, 0, 0",
        expect = ACCEPTABLE,
        desc = "the lane retired and left the table before routing: the chain went to a fresh lane")
@Outcome(id = "0, 32, .*|32, .*", expect = FORBIDDEN, desc = "envelope 3 was drained before 2: order broken")
@Outcome(
        id = "23, 23, .*|2, 3, .*|3, 2, .*|2, 23, .*|23, [23], .*",
        expect = FORBIDDEN,
        desc = "both: the chain was counted in the live lane and moved to the successor (drained twice or split)")
@Outcome(id = "0, 0, .*", expect = FORBIDDEN, desc = "neither: the chain was lost")
@Outcome(id = ".*, 0, \\d+, \\d+", expect = FORBIDDEN, desc = "the raced lane never retired: its slot leaks")
@Outcome(id = ".*, [1-9]\\d*, \\d+", expect = FORBIDDEN, desc = "a lane was left in the table after it emptied")
@Outcome(expect = FORBIDDEN, desc = "a count without its envelope, a count that ran away, or a refusal")
@State
public class LaneWriterPublishVsRetire {
    static final int COUNTED = 0;
    static final int MOVED = 1;
    static final int FRESH = 2;
    static final int ELSEWHERE = 3;

    private final KeyedLanes<String> lanes = new KeyedLanes<>(LaneOwner.NO_RUNNER);
    private final StressAdmission admission = new StressAdmission(lanes, StressExchange.ORDER_1.id());
    private final LaneWriter<String> writer = new LaneWriter<>(lanes, admission);
    private final Lane<String> lane;
    private final Envelope<String> first = StressExchange.envelope(1);
    private int ownerPolled;

    public LaneWriterPublishVsRetire() {
        String key = StressExchange.ORDER_1.id();
        lane = lanes.laneOf(key, key.hashCode());
        lane.stage(first);
        lane.offerStaged(); // returned 0: the owner actor owns the lane
        LaneOwner.takeFirst(lane); // and is handling envelope 1
    }

    @Actor
    public void producer() {
        writer.stage(new StressExchange(2));
        writer.stage(new StressExchange(3));
        writer.flush();
    }

    @Actor
    public void owner() {
        ownerPolled = LaneOwner.finishAndDrain(lane, lanes::complete);
    }

    @Arbiter
    public void arbiter(IIIIII_Result r) {
        r.r1 = ownerPolled;
        r.r2 = admission.keyPolled();
        r.r3 = where(first, admission.made(0));
        r.r4 = lane.isRetired() ? 1 : 0;
        r.r5 = LaneOwner.lanesIn(lanes);
        r.r6 = admission.refused();
    }

    /** Where the chain starting with {@code second} went, from what the raced lane's first envelope links to. */
    static int where(Envelope<String> first, Envelope<String> second) {
        LaneNode next = first.nextNode();
        if (next == first) {
            return COUNTED; // the owner moved past 1 to the chain
        }
        if (next == second) {
            return MOVED; // linked into the raced lane, never polled there
        }
        return next == null ? FRESH : ELSEWHERE;
    }
}
