package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.ArrayList;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A keyed lane's owner retires it ({@link Lane#completeOrRetire}, {@link Lane#leaveHome}) while the producer rebuilds
 * the table ({@link KeyedLanes#laneOf} of a new key when the table is full), which moves the live lane from a table of
 * 256 slots, where it sits at slot 64 or beyond, to a table of 64. (Lanes rebuild to no fewer than 4,096 slots; these
 * keyed lanes are built to rebuild to 64, so that a torn read fails loudly instead of clearing a wrong slot.)
 *
 * <p>r1: 1 if {@code leaveHome} threw (it read the new table with the old slot). r2: 1 if the retired lane is still in
 * the current table (it cleared its old slot: the producer finds it retired and replaces it, as a successor). r3: 1 if
 * the producer's call did rebuild the table at 64 slots, the premise of the check.
 */
@JCStressTest
@Description("retire racing with a rebuild that moves the lane to a smaller table: the owner clears its old or its new"
        + " slot, never an index of one table taken from the other")
@Outcome(
        id = "0, 0, 1",
        expect = ACCEPTABLE,
        desc = "retired before the rebuild (which dropped it) or cleared its new slot after it")
@Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "the owner cleared its old slot; the new table keeps it, retired")
@Outcome(id = "1, .*", expect = FORBIDDEN, desc = "leaveHome threw: a torn home (the new table with the old slot)")
@Outcome(id = ".*, 0", expect = FORBIDDEN, desc = "the producer did not rebuild the table: the check checks nothing")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class KeyedLanesRetireVsRebuild {
    private static final int SMALL_TABLE = 64;

    private final KeyedLanes<String> lanes = new KeyedLanes<>(LaneOwner.NO_RUNNER, SMALL_TABLE);
    private final Lane<String> moved;
    private int threw;

    public KeyedLanesRetireVsRebuild() {
        List<Lane<String>> live = new ArrayList<>();
        for (int i = 0; i < 49; i++) { // 48 fill the first table of 64; the 49th rebuilds it at 256
            live.add(lanes.laneOf("k" + i, ("k" + i).hashCode()));
        }
        Lane<String> far = null;
        for (Lane<String> lane : live) {
            if (far == null && lane.home != null && lane.home.slot() >= SMALL_TABLE) {
                far = lane;
            } else {
                retire(lane);
            }
        }
        moved = java.util.Objects.requireNonNull(far, "no lane at slot 64 or beyond");
        for (int i = 0; i < 143; i++) { // 49 + 143 = 192 keys, three quarters of 256: the next new key rebuilds
            retire(lanes.laneOf("r" + i, ("r" + i).hashCode()));
        }
    }

    private static void retire(Lane<String> lane) {
        lane.completeOrRetire();
        lane.leaveHome();
    }

    @Actor
    public void producer() {
        lanes.laneOf("rebuild", "rebuild".hashCode());
    }

    @Actor
    public void owner() {
        moved.completeOrRetire();
        try {
            moved.leaveHome();
        } catch (RuntimeException torn) {
            threw = 1;
        }
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r1 = threw;
        int[] left = {0};
        lanes.forEach(lane -> left[0] += lane == moved ? 1 : 0);
        r.r2 = left[0];
        r.r3 = lanes.rebuilds() == 2 && lanes.capacity() == SMALL_TABLE ? 1 : 0;
    }
}
