package dev.lanes.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Lanes that became ready together run in one task, which frees their slots once and never skips a lane. */
class LaneBatchTest {
    private final List<Object> drained = new ArrayList<>();
    private final List<Integer> freed = new ArrayList<>();

    @Test
    void runsEveryLaneInOrderAndFreesTheirSlotsOnce() {
        Lane<String>[] lanes = lanes("a", "b", "c");

        new LaneBatch<>(lanes, runner(null)).run();

        assertThat(drained).containsExactly("a", "b", "c");
        assertThat(freed).containsExactly(3);
    }

    @Test
    void aLaneThatFailsDoesNotStopTheOthersAndTheFailureIsRethrownAfterTheSlotsAreFreed() {
        Lane<String>[] lanes = lanes("a", "b", "c");

        assertThatIllegalStateException()
                .isThrownBy(() -> new LaneBatch<>(lanes, runner("b")).run())
                .withMessage("b failed");

        assertThat(drained).containsExactly("a", "b", "c");
        assertThat(freed).containsExactly(2);
    }

    @Test
    void fewReadyLanesGetATaskEachAndManyShareTasksOfAtMostTheMaximum() {
        assertThat(LaneBatch.lanesPerTask(1)).isEqualTo(1);
        assertThat(LaneBatch.lanesPerTask(4 * Runtime.getRuntime().availableProcessors() - 1))
                .isEqualTo(1);
        assertThat(LaneBatch.lanesPerTask(1_000_000)).isEqualTo(LaneBatch.MAX_LANES);
    }

    /** Drains by recording the lane's key and settling one slot; the lane keyed {@code failing} throws instead. */
    private Lane.LaneRunner<String> runner(String failing) {
        return new Lane.LaneRunner<>() {
            @Override
            public void drain(Lane<String> lane) {
                throw new AssertionError("a batch holds its lanes' slots");
            }

            @Override
            public int drainHeld(Lane<String> lane) {
                drained.add(lane.key);
                if (lane.key.equals(failing)) {
                    throw new IllegalStateException(failing + " failed");
                }
                return 1;
            }

            @Override
            public void free(int slots) {
                freed.add(slots);
            }
        };
    }

    @SuppressWarnings("unchecked")
    private static Lane<String>[] lanes(String... keys) {
        Lane<String>[] lanes = (Lane<String>[]) new Lane<?>[keys.length];
        for (int i = 0; i < keys.length; i++) {
            lanes[i] = new Lane<>(keys[i], LaneTest.IDLE);
        }
        return lanes;
    }
}
