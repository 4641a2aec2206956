package dev.lanes.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.lifecycle.ActivityLease;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The queue of one lane, driven by hand: staged chains, counts, and what a consumed node still references. */
class LaneTest {
    /** A runner that is never called: these tests drive the lane by hand. */
    static final Lane.LaneRunner<String> IDLE = new Lane.LaneRunner<>() {
        @Override
        public void drain(Lane<String> lane) {}

        @Override
        public int drainHeld(Lane<String> lane) {
            return 0;
        }

        @Override
        public void free(int slots) {}
    };

    private final Lane<String> lane = new Lane<>("id-1", IDLE);

    @Test
    void aStagedChainIsOfferedWithOneCountAndPolledInOrder() {
        List<Envelope<String>> staged = stage(3);
        assertThat(lane.staged()).isEqualTo(3);
        assertThat(lane.depth()).as("nothing counted while staged").isZero();

        assertThat(lane.offerStaged())
                .as("count before: the caller owns the lane")
                .isZero();

        assertThat(lane.depth()).isEqualTo(3);
        assertThat(lane.staged()).isZero();
        assertThat(List.of(lane.poll(), lane.poll(), lane.poll())).containsExactlyElementsOf(staged);
    }

    @Test
    void aConsumedNodeIsLinkedToItselfSoItKeepsNoLaterEnvelopeReachable() {
        List<Envelope<String>> staged = stage(3);
        lane.offerStaged();
        LaneNode walkerPosition = lane.oldest(); // a force stop that read the oldest node before the owner moved on

        Envelope<String> first = lane.poll();
        Envelope<String> second = lane.poll();

        assertThat(walkerPosition.nextNode()).as("the lane's own stub, passed").isSameAs(walkerPosition);
        assertThat(first.nextNode()).as("consumed").isSameAs(first);
        assertThat(second.nextNode()).as("the current one still leads on").isSameAs(staged.get(2));
        assertThat(lane.oldest()).as("where a walker starts again").isSameAs(second);
    }

    @Test
    void aChainOfferedToARetiredLaneIsKeptForItsSuccessorInFrontOfWhatTheSuccessorHasStaged() {
        assertThat(lane.completeOrRetire())
                .as("nothing counted: the lane retires")
                .isZero();
        assertThat(lane.isRetired()).isTrue();
        List<Envelope<String>> older = stage(2);
        assertThat(lane.offerStaged()).isEqualTo(Lane.RETIRED);
        Lane<String> successor = new Lane<>("id-1", IDLE);
        Envelope<String> newer = envelope(99);
        successor.stage(newer);

        assertThat(lane.moveStageTo(successor))
                .as("the successor had a stage already")
                .isFalse();

        assertThat(successor.staged()).isEqualTo(3);
        assertThat(successor.offerStaged()).isZero();
        assertThat(List.of(successor.poll(), successor.poll(), successor.poll()))
                .containsExactly(older.get(0), older.get(1), newer);
    }

    private List<Envelope<String>> stage(int count) {
        List<Envelope<String>> staged = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Envelope<String> envelope = envelope(i);
            staged.add(envelope);
            assertThat(lane.stage(envelope)).as("first staged").isEqualTo(i == 0);
        }
        return staged;
    }

    private static Envelope<String> envelope(int sequence) {
        return new Envelope<>(TestExchange.of("id-1", sequence), ActivityLease.NONE, 0L);
    }
}
