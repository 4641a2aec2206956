package dev.lanes.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The producer-owned table of keyed lanes: one live lane per id, owners clear their slot, the table follows the work. */
class KeyedLanesTest {
    private final KeyedLanes<String> lanes = new KeyedLanes<>(LaneTest.IDLE);

    @Test
    void anIdKeepsItsLaneWhileItIsLiveAndGetsAFreshOneAfterItsOwnerRetiredIt() {
        Lane<String> first = laneOf("id-1");
        assertThat(laneOf("id-1")).isSameAs(first);
        assertThat(laneOf(new String("id-1"))).as("equal, not the same string").isSameAs(first);

        lanes.complete(first);

        assertThat(first.isRetired()).isTrue();
        assertThat(all()).doesNotContain(first);
        Lane<String> second = laneOf("id-1");
        assertThat(second).isNotSameAs(first);
        assertThat(second.isRetired()).isFalse();
    }

    @Test
    void theSuccessorOfARetiredLaneIsTheLaneMadeAfterItOrElseAFreshOneInItsSlot() {
        Lane<String> cleared = laneOf("id-1");
        lanes.complete(cleared);
        Lane<String> madeAfter = laneOf("id-1");
        assertThat(lanes.successor(cleared)).isSameAs(madeAfter);

        Lane<String> stillInItsSlot = laneOf("id-2");
        assertThat(stillInItsSlot.completeOrRetire()).isZero(); // retired; its owner has not cleared the slot yet
        Lane<String> fresh = lanes.successor(stillInItsSlot);
        assertThat(fresh).isNotSameAs(stillInItsSlot);
        assertThat(laneOf("id-2")).isSameAs(fresh);
    }

    @Test
    void everyLiveLaneIsFoundAcrossRebuildsAndRetiredOnesAreDropped() {
        Map<String, Lane<String>> live = new java.util.HashMap<>();
        for (int i = 0; i < 5_000; i++) {
            Lane<String> lane = laneOf("id-" + i);
            if (i % 2 == 0) {
                live.put("id-" + i, lane);
            } else {
                lanes.complete(lane);
            }
        }

        live.forEach((id, lane) -> assertThat(laneOf(id)).as(id).isSameAs(lane));
        assertThat(all()).containsExactlyInAnyOrderElementsOf(live.values());
    }

    @Test
    void theTableFollowsWhatIsLiveNotHowManyIdsWereSeen() {
        for (int i = 0; i < 1_000_000; i++) {
            lanes.complete(laneOf("id-" + i));
        }
        assertThat(lanes.capacity()).isLessThanOrEqualTo(4_096);
        assertThat(all()).isEmpty();
    }

    @Test
    void idsThatRecurKeepTheirKeysSoTheirLanesArePlacedWithoutRebuildingTheTable() {
        for (int i = 0; i < 1_000; i++) {
            lanes.complete(laneOf("account-" + i));
        }
        int rebuildsWhileSeeingThemFirst = lanes.rebuilds();

        for (int round = 0; round < 100; round++) {
            for (int i = 0; i < 1_000; i++) {
                lanes.complete(laneOf("account-" + i));
            }
        }

        assertThat(lanes.rebuilds()).isEqualTo(rebuildsWhileSeeingThemFirst);
        assertThat(all()).isEmpty();
    }

    private Lane<String> laneOf(String id) {
        return lanes.laneOf(id, id.hashCode());
    }

    @Test
    void aRebuildToASmallerTableMovesTheLiveLaneWhoseRetirementThenClearsItsNewSlot() {
        KeyedLanes<String> small = new KeyedLanes<>(LaneTest.IDLE, 64);
        List<Lane<String>> placed = new ArrayList<>();
        for (int i = 0; i < 49; i++) { // the 49th key fills the first table of 64: rebuilt at 256
            placed.add(small.laneOf("k" + i, ("k" + i).hashCode()));
        }
        Lane<String> live = placed.stream()
                .filter(lane -> lane.home != null && lane.home.slot() >= 64)
                .findFirst()
                .orElseThrow();
        placed.stream().filter(lane -> lane != live).forEach(small::complete);
        for (int i = 0; i < 143; i++) { // three quarters of 256 hold a key
            small.complete(small.laneOf("r" + i, ("r" + i).hashCode()));
        }
        assertThat(small.capacity()).isEqualTo(256);

        small.laneOf("rebuild", "rebuild".hashCode());

        assertThat(small.capacity())
                .as("a quarter full at most, and no smaller than asked")
                .isEqualTo(64);
        assertThat(live.home.slot()).isLessThan(64);
        assertThat(small.complete(live)).isZero();
        List<Lane<String>> left = new ArrayList<>();
        small.forEach(left::add);
        assertThat(left).doesNotContain(live);
    }

    @Test
    void aRebuiltCapacityThatIsNoPowerOfTwoOrBelowTheFirstTableIsRefused() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new KeyedLanes<>(LaneTest.IDLE, 100))
                .withMessage("rebuiltCapacity must be a power of two of at least 64: 100");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new KeyedLanes<>(LaneTest.IDLE, 32))
                .withMessage("rebuiltCapacity must be a power of two of at least 64: 32");
    }

    private List<Lane<String>> all() {
        Map<Lane<String>, Boolean> seen = new IdentityHashMap<>();
        List<Lane<String>> found = new ArrayList<>();
        lanes.forEach(lane -> {
            if (seen.put(lane, true) == null) {
                found.add(lane);
            }
        });
        return found;
    }
}
