package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

/** The commit point never passes a record in flight or rejected, whatever order settlements come in. */
class PartitionOffsetsTest {
    private final PartitionOffsets offsets = new PartitionOffsets();

    @Nested
    class InOrder {

        @Test
        void nothingHandedOutHasNothingToCommit() {
            assertThat(offsets.committable()).isEqualTo(-1);
            assertThat(offsets.inFlight()).isZero();
        }

        @Test
        void aRecordInFlightHoldsTheCommitAtItsOwnOffset() {
            offsets.handedOut(7);

            assertThat(offsets.committable())
                    .as("the next owner reads it again")
                    .isEqualTo(7);
            assertThat(offsets.inFlight()).isOne();
        }

        @Test
        void settlingInOrderMovesTheCommitPastEach() {
            offsets.handedOut(0);
            offsets.handedOut(1);
            offsets.handedOut(2);

            offsets.settle(0);
            assertThat(offsets.committable()).isEqualTo(1);
            offsets.settle(1);
            offsets.settle(2);

            assertThat(offsets.committable()).isEqualTo(3);
            assertThat(offsets.held()).isZero();
        }

        @Test
        void gapsInTheOffsetsAreFine() {
            offsets.handedOut(10);
            offsets.handedOut(14); // compaction or transaction markers between
            offsets.settle(10);

            assertThat(offsets.committable()).isEqualTo(14);
            offsets.settle(14);
            assertThat(offsets.committable()).isEqualTo(15);
        }

        @Test
        void aSkippedRecordIsSettledAtOnce() {
            offsets.handedOut(0);
            offsets.skipped(1);

            assertThat(offsets.committable()).isZero();
            offsets.settle(0);
            assertThat(offsets.committable()).isEqualTo(2);
        }
    }

    @Nested
    class OutOfOrder {

        @Test
        void aLaterSettlementDoesNotPassAnEarlierRecordInFlight() {
            for (long offset = 0; offset < 5; offset++) {
                offsets.handedOut(offset);
            }
            offsets.settle(4);
            offsets.settle(2);
            offsets.settle(1);

            assertThat(offsets.committable()).as("0 is still in flight").isZero();
            assertThat(offsets.held()).isEqualTo(5);

            offsets.settle(0);
            assertThat(offsets.committable()).as("3 is still in flight").isEqualTo(3);
            assertThat(offsets.held()).isEqualTo(2);

            offsets.settle(3);
            assertThat(offsets.committable()).isEqualTo(5);
            assertThat(offsets.held()).isZero();
        }

        @Test
        void aRejectedRecordHoldsTheCommitUntilARestart() {
            offsets.handedOut(0);
            offsets.handedOut(1);
            offsets.handedOut(2);
            offsets.settle(0);
            offsets.reject(1);
            offsets.settle(2);

            assertThat(offsets.committable()).isEqualTo(1);
            assertThat(offsets.inFlight()).isZero();
            assertThat(offsets.rejected()).isOne();

            offsets.restartAt(1);
            assertThat(offsets.committable()).isEqualTo(1);
            assertThat(offsets.rejected()).isZero();
            offsets.handedOut(1);
            offsets.settle(1);
            assertThat(offsets.committable()).isEqualTo(2);
        }

        @Test
        void aSecondSettlementOrAnUnknownOffsetIsIgnored() {
            offsets.handedOut(0);
            offsets.handedOut(1);

            assertThat(offsets.settle(1)).isTrue();
            assertThat(offsets.settle(1)).isFalse();
            assertThat(offsets.settle(5)).isFalse();
            assertThat(offsets.reject(1)).isFalse();
            assertThat(offsets.inFlight()).isOne();
        }

        @Test
        void offsetsMustBeHandedOutInOrder() {
            offsets.handedOut(5);

            assertThatThrownBy(() -> offsets.handedOut(5)).hasMessageContaining("offset 5 handed out after 5");
            assertThatThrownBy(() -> offsets.handedOut(3)).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void theRingGrowsAcrossItsWrapPoint() {
            long offset = 0;
            for (; offset < 10; offset++) {
                offsets.handedOut(offset);
            }
            for (long settled = 1; settled < 10; settled++) {
                offsets.settle(settled);
            }
            offsets.settle(0); // head moves to the middle of the ring
            for (; offset < 100; offset++) {
                offsets.handedOut(offset); // wraps, then grows
            }
            for (long settled = 99; settled >= 11; settled--) {
                offsets.settle(settled);
            }
            assertThat(offsets.committable()).isEqualTo(10);
            offsets.settle(10);
            assertThat(offsets.committable()).isEqualTo(100);
        }
    }

    /** Against a model: the commit is the lowest unsettled offset (or the next one), after every step. */
    @RepeatedTest(50)
    void randomSettlementOrdersAgreeWithTheModel(RepetitionInfo repetition) {
        Random random = new Random(repetition.getCurrentRepetition() * 7919L);
        TreeSet<Long> unsettled = new TreeSet<>();
        List<Long> inFlight = new ArrayList<>();
        long next = random.nextInt(1000);
        long expectedNext = -1;
        for (int step = 0; step < 5_000; step++) {
            int action = random.nextInt(10);
            if (action < 5 || inFlight.isEmpty()) {
                next += 1 + (random.nextInt(10) == 0 ? random.nextInt(5) : 0);
                offsets.handedOut(next);
                unsettled.add(next);
                inFlight.add(next);
                expectedNext = next + 1;
            } else {
                Collections.swap(inFlight, random.nextInt(inFlight.size()), inFlight.size() - 1);
                long settled = inFlight.remove(inFlight.size() - 1);
                if (action == 9) {
                    assertThat(offsets.reject(settled)).isTrue(); // stays in the model's unsettled set
                } else {
                    assertThat(offsets.settle(settled)).isTrue();
                    unsettled.remove(settled);
                }
            }
            long expected = unsettled.isEmpty() ? expectedNext : unsettled.first();
            assertThat(offsets.committable()).as("step %d", step).isEqualTo(expected);
            assertThat(offsets.inFlight()).isEqualTo(inFlight.size());
            assertThat(offsets.rejected()).isEqualTo(unsettled.size() - inFlight.size());
        }
    }
}
