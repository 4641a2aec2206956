package dev.lanes.processing.tracking;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SettledPositionsTest {

    @Test
    void theCheckpointMovesOnlyPastAContiguousSettledPrefix() {
        SettledPositions positions = new SettledPositions(10);
        positions.offered(12, true);
        positions.offered(15, false); // not for this processor: settled as read
        positions.offered(17, true);
        positions.offered(20, true);

        assertThat(positions.checkpoint()).isEqualTo(11);
        positions.settled(17);
        assertThat(positions.checkpoint()).as("17 settled, 12 not").isEqualTo(11);
        positions.settled(12);
        assertThat(positions.checkpoint()).as("12 and 17 settled, 20 not").isEqualTo(19);
        positions.settled(20);
        assertThat(positions.checkpoint()).isEqualTo(20);
        assertThat(positions.inFlight()).isZero();
    }

    @Test
    void aPositionSettledTwiceCountsOnce() {
        SettledPositions positions = new SettledPositions(0);
        positions.offered(1, true);
        positions.offered(2, true);

        positions.settled(1);
        positions.settled(1);

        assertThat(positions.inFlight()).isEqualTo(1);
        assertThat(positions.checkpoint()).isEqualTo(1);
    }
}
