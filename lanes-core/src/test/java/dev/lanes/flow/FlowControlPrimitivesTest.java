package dev.lanes.flow;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.internal.route.BacklogRoute;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/** The gate pauses demand, never a thread; the backlog holds it with hysteresis; the route never refuses for room. */
class FlowControlPrimitivesTest {

    @Nested
    class Gates {

        @Test
        void aClosedGateRelaysNoDemandAndOpeningItRelaysWhatWasAskedMeanwhile() {
            IntakeGate gate = new IntakeGate("test");
            AtomicLong relayed = new AtomicLong();
            Flux<Integer> source = Flux.range(0, 1_000).doOnRequest(n -> relayed.addAndGet(n));
            gate.hold();

            StepVerifier.create(gate.admit(source), 10)
                    .expectSubscription()
                    .then(() -> assertThat(relayed).hasValue(0))
                    .then(gate::release)
                    .expectNextCount(10)
                    .thenCancel()
                    .verify(Duration.ofSeconds(5));
        }

        @Test
        void demandIsRelayedAtMostAWindowAheadOfDelivery() {
            IntakeGate gate = new IntakeGate("test");
            List<Long> requests = new CopyOnWriteArrayList<>();
            Flux<Integer> source = Flux.range(0, 1_000).doOnRequest(requests::add);

            StepVerifier.create(gate.admit(source)).expectNextCount(1_000).verifyComplete();

            assertThat(requests).allMatch(n -> n <= IntakeGate.WINDOW);
        }

        @Test
        void closingTheGateStopsTheFlowWithinAWindowAndItResumesWhenReleased() {
            IntakeGate gate = new IntakeGate("test");
            List<Integer> received = new CopyOnWriteArrayList<>();
            gate.admit(Flux.range(0, 1_000)).subscribe(value -> {
                received.add(value);
                if (value == 99) {
                    gate.hold();
                }
            });

            assertThat(received).hasSizeBetween(100, 100 + IntakeGate.WINDOW);
            int atPause = received.size();
            gate.release();
            assertThat(received).hasSize(1_000).hasSizeGreaterThan(atPause);
        }

        @Test
        void aShutGateCancelsItsSourceWhoseHeldValuesAreDiscarded() {
            IntakeGate gate = new IntakeGate("test");
            List<Integer> discarded = new CopyOnWriteArrayList<>();
            BacklogRoute<Integer> route = new BacklogRoute<>(null, discarded::add);
            List<Integer> received = new CopyOnWriteArrayList<>();
            gate.hold();
            gate.admit(route.flux()).subscribe(received::add);
            route.offer(1);
            route.offer(2);

            gate.shut();

            assertThat(received).isEmpty();
            assertThat(discarded).containsExactly(1, 2);
            assertThat(route.offer(3)).as("its source is gone").isFalse();
            assertThat(gate.isShut()).isTrue();
            assertThat(gate.isOpen()).isFalse();
        }

        @Test
        void aGateMadeWithAndIsOpenWhileBothAreAndWakesWhenTheLastOfThemOpens() {
            IntakeGate events = new IntakeGate("events");
            IntakeGate front = new IntakeGate("front");
            IntakeGate both = events.and(front);
            List<Integer> received = new CopyOnWriteArrayList<>();
            events.hold();
            front.hold();
            both.admit(Flux.range(0, 10)).subscribe(received::add);

            events.release();
            assertThat(both.isOpen()).isFalse();
            assertThat(received).isEmpty();
            front.release();

            assertThat(received).hasSize(10);
            front.shut();
            assertThat(both.isShut()).isTrue();
            assertThat(events.isShut())
                    .as("shutting a part shuts the composite, not the other part")
                    .isFalse();
        }

        @Test
        void discardHooksOfTheSubscriberReachTheSource() {
            IntakeGate gate = new IntakeGate("test");
            List<Object> discarded = new CopyOnWriteArrayList<>();
            BacklogRoute<Integer> route = new BacklogRoute<>(null, value -> {});
            route.offer(1);
            route.offer(2);
            route.offer(3);

            StepVerifier.create(gate.admit(route.flux()).doOnDiscard(Integer.class, discarded::add), 1)
                    .expectNext(1)
                    .thenCancel()
                    .verify(Duration.ofSeconds(5));

            assertThat(discarded).containsExactly(2, 3);
        }
    }

    @Nested
    class Backlogs {

        @Test
        void holdsTheGateAtItsBudgetAndReleasesItAtHalf() {
            IntakeGate gate = new IntakeGate("test");
            Backlog backlog = new Backlog(gate, 4);
            for (int i = 0; i < 3; i++) {
                backlog.add();
            }
            assertThat(gate.isOpen()).isTrue();
            backlog.add();
            assertThat(gate.isOpen()).as("at the budget").isFalse();
            backlog.add();
            backlog.remove();
            backlog.remove();
            assertThat(gate.isOpen()).as("3 of 4: not yet back to half").isFalse();
            backlog.remove();
            assertThat(gate.isOpen()).as("back to half").isTrue();
        }

        @Test
        void twoBacklogsOnOneGateKeepItClosedUntilBothAreBack() {
            IntakeGate gate = new IntakeGate("test");
            Backlog first = new Backlog(gate, 2);
            Backlog second = new Backlog(gate, 2);
            first.add();
            first.add();
            second.add();
            second.add();
            first.remove();
            first.remove();
            assertThat(gate.isOpen()).isFalse();
            second.remove();
            assertThat(gate.isOpen()).isTrue();
        }
    }

    @Nested
    class Routes {

        @Test
        void anOfferNeverWaitsForRoomAndTheBacklogCountsWhatTheConsumerHasNotTaken() {
            IntakeGate gate = new IntakeGate("test");
            Backlog backlog = new Backlog(gate, 8);
            BacklogRoute<Integer> route = new BacklogRoute<>(backlog, value -> {});
            for (int i = 0; i < 100; i++) {
                assertThat(route.offer(i)).isTrue();
            }
            assertThat(backlog.size()).isEqualTo(100);
            assertThat(gate.isOpen()).isFalse();

            StepVerifier.create(route.flux(), 96)
                    .expectNextCount(96)
                    .then(() -> assertThat(gate.isOpen())
                            .as("4 left of a budget of 8")
                            .isTrue())
                    .thenCancel()
                    .verify(Duration.ofSeconds(5));
        }

        @Test
        void whatTheConsumerLeavesWhenItCancelsIsDiscardedAndLeavesTheBacklog() {
            IntakeGate gate = new IntakeGate("test");
            Backlog backlog = new Backlog(gate, 2);
            List<Integer> discarded = new CopyOnWriteArrayList<>();
            BacklogRoute<Integer> route = new BacklogRoute<>(backlog, discarded::add);
            route.offer(1);
            route.offer(2);
            route.offer(3);

            route.flux().take(1).subscribe();

            assertThat(discarded).containsExactly(2, 3);
            assertThat(backlog.size()).isZero();
            assertThat(gate.isOpen()).isTrue();
            assertThat(route.offer(4)).as("the consumer is gone").isFalse();
            assertThat(backlog.size()).isZero();
        }
    }
}
