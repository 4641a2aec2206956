package dev.lanes.kafka;

import static dev.lanes.kafka.LoopState.Intake.NONE;
import static dev.lanes.kafka.LoopState.Phase.CLOSING;
import static dev.lanes.kafka.LoopState.Phase.FORCED;
import static dev.lanes.kafka.LoopState.Phase.RUNNING;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two transitions of the consumer loop's lifecycle computed from the same state: exactly one wins, and the loser
 * recomputes from the winner's state, where it no longer applies. The premise (both computed from the same state) is
 * set with latches: the held transition computes its next state, waits while the other moves, then tries its
 * compare-and-set.
 */
class LoopLifecycleRaceTest {
    private static final String OWNER = "KafkaEventConsumer[orders]";
    private final ExecutorService held = Executors.newSingleThreadExecutor();
    private final LoopLifecycle lifecycle = new LoopLifecycle();
    private final MockConsumer<String, byte[]> consumer = new MockConsumer<>("earliest");

    @AfterEach
    void stopThread() {
        held.shutdownNow();
    }

    @Test
    void aCloseComputedBeforeAForceLosesToIt_soTheForceIsNeverUndone() throws Exception {
        lifecycle.move(state -> state.started(OWNER));
        lifecycle.move(state -> state.attached(consumer, OWNER));
        HeldMove close = new HeldMove(LoopState::closing);

        LoopLifecycle.Moved force = lifecycle.move(LoopState::forcing);

        assertThat(close.result()).as("the close lost").isNull();
        assertThat(close.seen()).extracting(LoopState::phase).containsExactly(RUNNING, FORCED);
        assertThat(force).isNotNull();
        assertThat(force.to().consumer()).as("the force wakes the consumer").isSameAs(consumer);
        assertThat(lifecycle.current().phase()).isEqualTo(FORCED);
    }

    @Test
    void aForceBeforeTheThreadAttachesItsConsumer_refusesTheConsumer_soTheThreadClosesItAndLeaves() throws Exception {
        lifecycle.move(state -> state.started(OWNER));
        HeldMove attach = new HeldMove(state -> state.attached(consumer, OWNER));

        LoopLifecycle.Moved force = lifecycle.move(LoopState::forcing);

        assertThat(attach.result())
                .as("the consumer thread sees the force: it does not poll")
                .isNull();
        assertThat(attach.seen()).extracting(LoopState::phase).containsExactly(RUNNING, FORCED);
        assertThat(force).isNotNull();
        assertThat(force.to().consumer()).as("nothing was attached to wake").isNull();
        assertThat(lifecycle.current().phase()).isEqualTo(FORCED);
        assertThat(lifecycle.current().consumer()).isNull();
    }

    @Test
    void aStopTakingNewComputedBeforeACloseNeverReopensTheIntake() throws Exception {
        lifecycle.move(state -> state.started(OWNER));
        HeldMove followUpsOnly = new HeldMove(LoopState::followUpsOnly);

        LoopLifecycle.Moved close = lifecycle.move(LoopState::closing);

        assertThat(followUpsOnly.result()).isNull();
        assertThat(followUpsOnly.seen()).extracting(LoopState::phase).containsExactly(RUNNING, CLOSING);
        assertThat(close).isNotNull();
        assertThat(lifecycle.current().phase()).isEqualTo(CLOSING);
        assertThat(lifecycle.current().intake()).isEqualTo(NONE);
    }

    @Test
    void twoForcesHaveOneWinner_soTheConsumerIsWokenOnce() throws Exception {
        lifecycle.move(state -> state.started(OWNER));
        lifecycle.move(state -> state.attached(consumer, OWNER));
        HeldMove first = new HeldMove(LoopState::forcing);

        LoopLifecycle.Moved second = lifecycle.move(LoopState::forcing);

        assertThat(first.result()).isNull();
        assertThat(second).isNotNull();
        assertThat(first.seen()).extracting(LoopState::phase).containsExactly(RUNNING, FORCED);
    }

    /**
     * A move on its own thread whose first computation is held: it has computed its next state from the current one,
     * and waits for {@link #result()} before it tries its compare-and-set.
     */
    private final class HeldMove {
        private final CountDownLatch computed = new CountDownLatch(1);
        private final CountDownLatch release = new CountDownLatch(1);
        private final List<LoopState> seen = new CopyOnWriteArrayList<>();
        private final Future<LoopLifecycle.@Nullable Moved> moved;

        HeldMove(LoopLifecycle.Transition transition) throws InterruptedException {
            moved = held.submit(() -> lifecycle.move(from -> {
                seen.add(from);
                LoopState to = transition.apply(from);
                if (seen.size() == 1) {
                    computed.countDown();
                    awaitRelease();
                }
                return to;
            }));
            assertThat(computed.await(10, TimeUnit.SECONDS))
                    .as("the held move computed its state")
                    .isTrue();
        }

        private void awaitRelease() {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("the held move was interrupted", e);
            }
        }

        /** Lets the held move try its compare-and-set; what it moved, or {@code null}. */
        LoopLifecycle.@Nullable Moved result() throws Exception {
            release.countDown();
            return moved.get(10, TimeUnit.SECONDS);
        }

        /** The states the move computed from: the first, and each after a lost compare-and-set. */
        List<LoopState> seen() {
            return seen;
        }
    }
}
