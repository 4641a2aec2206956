package dev.lanes.kafka;

import static dev.lanes.kafka.LoopState.Intake.FOLLOW_UPS_ONLY;
import static dev.lanes.kafka.LoopState.Intake.NEW_AND_FOLLOW_UPS;
import static dev.lanes.kafka.LoopState.Intake.NONE;
import static dev.lanes.kafka.LoopState.Phase.CLOSING;
import static dev.lanes.kafka.LoopState.Phase.FORCED;
import static dev.lanes.kafka.LoopState.Phase.NEW;
import static dev.lanes.kafka.LoopState.Phase.RUNNING;
import static dev.lanes.kafka.LoopState.Phase.TERMINATED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The consumer loop's lifecycle, one transition at a time (the races are in {@link LoopLifecycleRaceTest}). */
class LoopStateTest {
    private static final String OWNER = "KafkaEventConsumer[orders]";
    private final MockConsumer<String, byte[]> consumer = new MockConsumer<>("earliest");

    private static LoopState running() {
        return LoopState.INITIAL.started(OWNER);
    }

    @Nested
    class TheGracefulPath {

        @Test
        void newStartsRunningAndTakesEverything() {
            LoopState started = running();

            assertThat(started.phase()).isEqualTo(RUNNING);
            assertThat(started.intake()).isEqualTo(NEW_AND_FOLLOW_UPS);
            assertThat(started.threadStarted()).isTrue();
            assertThat(started.consumer()).isNull();
        }

        @Test
        void theIntakeNarrowsOneWayAndTheCloseQuiescesAndKeepsTheConsumer() {
            LoopState attached = running().attached(consumer, OWNER);
            LoopState followUps = attached.followUpsOnly();
            LoopState quiesced = followUps.quiesced();
            LoopState closing = quiesced.closing();

            assertThat(followUps.intake()).isEqualTo(FOLLOW_UPS_ONLY);
            assertThat(followUps.takesNew()).isFalse();
            assertThat(quiesced.isQuiesced()).isTrue();
            assertThat(quiesced.phase()).isEqualTo(RUNNING);
            assertThat(closing.phase()).isEqualTo(CLOSING);
            assertThat(closing.consumer()).isSameAs(consumer);
            assertThat(quiesced.followUpsOnly()).as("the intake never widens").isNull();
            assertThat(closing.quiesced()).isNull();
        }

        @Test
        void aCloseQuiescesARunningLoopAtOnce() {
            LoopState closing = running().closing();

            assertThat(closing.intake()).isEqualTo(NONE);
            assertThat(closing.closing()).as("closing twice is one close").isNull();
        }

        @Test
        void theThreadReleasesItsConsumerAndEnds() {
            LoopState released = running().attached(consumer, OWNER).closing().released();
            LoopState ended = released.ended();

            assertThat(released.consumer()).isNull();
            assertThat(released.released()).isNull();
            assertThat(ended.phase()).isEqualTo(TERMINATED);
            assertThat(ended.ended()).isNull();
            assertThat(ended.neverStarted()).as("the thread ended it").isNull();
        }
    }

    @Nested
    class TheForce {

        @Test
        void aForceCutsAGracefulCloseAndCarriesTheConsumerToWakeUp() {
            LoopState forced = running().attached(consumer, OWNER).closing().forcing();

            assertThat(forced.phase()).isEqualTo(FORCED);
            assertThat(forced.consumer()).isSameAs(consumer);
            assertThat(forced.forcing()).as("forcing twice is one force").isNull();
            assertThat(forced.closing())
                    .as("a close after a force changes nothing")
                    .isNull();
        }

        @Test
        void aConsumerCreatedAfterTheForceIsNotAttached() {
            assertThat(running().forcing().attached(consumer, OWNER)).isNull();
        }

        @Test
        void aLoopForcedBeforeItStartedEndsWithoutAThread() {
            LoopState forced = LoopState.INITIAL.forcing();

            assertThat(forced.threadStarted()).isFalse();
            assertThat(forced.neverStarted().phase()).isEqualTo(TERMINATED);
        }
    }

    @Nested
    class Misuse {

        @Test
        void startingTwiceNamesTheLoopAndItsState() {
            assertThatThrownBy(() -> running().started(OWNER))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(OWNER + " can only be started once, and not after a stop; current state: RUNNING"
                            + " (intake NEW_AND_FOLLOW_UPS)");
        }

        @Test
        void startingAfterAStopNamesTheLoopAndItsState() {
            assertThatThrownBy(() -> LoopState.INITIAL.closing().started(OWNER))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(OWNER + " can only be started once, and not after a stop; current state: CLOSING"
                            + " (intake NONE, no thread)");
        }

        @Test
        void attachingTwiceNamesTheLoopAndItsState() {
            LoopState attached = running().attached(consumer, OWNER);

            assertThatThrownBy(() -> attached.attached(consumer, OWNER))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(OWNER + " cannot attach a consumer in state RUNNING (intake NEW_AND_FOLLOW_UPS,"
                            + " consumer open)");
        }

        @Test
        void attachingWithoutAThreadNamesTheLoopAndItsState() {
            assertThatThrownBy(() -> LoopState.INITIAL.attached(consumer, OWNER))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(
                            OWNER + " cannot attach a consumer in state NEW (intake NEW_AND_FOLLOW_UPS, no thread)");
        }

        @Test
        void aStartedLoopIsNotEndedAsNeverStarted() {
            assertThat(running().closing().neverStarted()).isNull();
        }

        @Test
        void snapshotsThatDisagreeAreRefused() {
            assertThatThrownBy(() -> new LoopState(CLOSING, FOLLOW_UPS_ONLY, true, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a consumer loop CLOSING takes nothing in: FOLLOW_UPS_ONLY");
            assertThatThrownBy(() -> new LoopState(NEW, NEW_AND_FOLLOW_UPS, true, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a NEW consumer loop has no thread");
            assertThatThrownBy(() -> new LoopState(TERMINATED, NONE, true, consumer))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a consumer loop TERMINATED holds no open consumer");
        }
    }
}
