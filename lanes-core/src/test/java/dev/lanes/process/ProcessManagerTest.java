package dev.lanes.process;

import static dev.lanes.process.Shop.order;
import static dev.lanes.process.Shop.payment;
import static dev.lanes.process.Shop.warehouse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.WaitStage;
import dev.lanes.deadline.Deadline;
import dev.lanes.deadline.DeadlineRunner;
import dev.lanes.deadline.DeadlineStore;
import dev.lanes.deadline.DeadlineStores;
import dev.lanes.deadline.Deadlines;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.process.Shop.Cancel;
import dev.lanes.process.Shop.Emit;
import dev.lanes.process.Shop.Fulfilment;
import dev.lanes.process.Shop.OrderAmended;
import dev.lanes.process.Shop.OrderPlaced;
import dev.lanes.process.Shop.PaymentReceived;
import dev.lanes.process.Shop.Reserve;
import dev.lanes.process.Shop.Ship;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

class ProcessManagerTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final Shop shop = new Shop();
    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();
    private final Clock clock = Deadlines.clockOf(time);
    private final DeadlineStore deadlines = DeadlineStores.inMemory();
    private final EventStore store = EventStores.inMemory();
    private final DeadLetterQueue deadLetters = DeadLetterQueues.inMemory();

    @AfterEach
    void disposeTime() {
        time.dispose();
    }

    private static void send(Lanes lanes, AggregateId target, Object command) {
        lanes.gateway().send(target, command, WaitStage.PROCESSED).block(WAIT);
    }

    private List<Deadline> pending() {
        return deadlines.pending().block(WAIT);
    }

    private long count(Object command) {
        return shop.received.stream().filter(command::equals).count();
    }

    private DeadlineRunner runner(Lanes lanes) {
        return DeadlineRunner.create(
                        deadlines,
                        lanes.gateway(),
                        deadLetters,
                        clock,
                        time,
                        DeadlineRunner.Settings.DEFAULT
                                .withPollInterval(Duration.ofSeconds(1))
                                .withRetries(Duration.ofSeconds(5), 3))
                .start();
    }

    @Test
    void eventsOfTwoAggregatesAreAssociatedByTheirKeyAndThePaymentShipsAndEndsTheProcess() {
        ProcessManager<Fulfilment> process = Shop.fulfilment(deadlines, clock).build();
        try (Lanes lanes = shop.lanes(process, store, deadLetters).build().start()) {
            send(lanes, order("o1"), new Emit(List.of(new OrderPlaced("o1", 0))));
            await().atMost(WAIT).until(() -> pending().size() == 1 && count(new Reserve("o1")) == 1);
            assertThat(pending().get(0).dueAt()).isEqualTo(Instant.EPOCH.plus(Duration.ofMinutes(15)));
            assertThat(pending().get(0).target()).isEqualTo(process.instance("o1"));

            send(lanes, payment("p-9"), new Emit(List.of(new PaymentReceived("o1"))));
            await().atMost(WAIT)
                    .until(() -> count(new Ship("o1")) == 1 && pending().isEmpty());

            ProcessInstance<Fulfilment> instance = Shop.instance(process, store, "o1");
            assertThat(instance.state().seen()).containsExactly("placed", "paid");
            assertThat(instance.ended()).isTrue();
            assertThat(instance.deadlines()).isEmpty();
        }
    }

    @Test
    void anEventForAnInstanceThatNeverStartedOrEndedStoresNothing() {
        ProcessManager<Fulfilment> process = Shop.fulfilment(deadlines, clock).build();
        var definition = process.definition();
        var fresh = definition.initial(process.instance("ghost"));
        assertThat(definition
                        .decide(fresh.state(), new PaymentReceived("ghost"))
                        .block(WAIT))
                .isEmpty();

        var ended = fresh.state().withState(new Fulfilment("ghost", List.of())).asEnded();
        assertThat(definition.decide(ended, new OrderPlaced("ghost", 0)).block(WAIT))
                .isEmpty();
    }

    @Test
    void theDeadlineFiresAtItsVirtualTimeOnceAndCancelsTheOrder() {
        ProcessManager<Fulfilment> process = Shop.fulfilment(deadlines, clock).build();
        try (Lanes lanes = shop.lanes(process, store, deadLetters).build().start()) {
            DeadlineRunner runner = runner(lanes);
            send(lanes, order("o2"), new Emit(List.of(new OrderPlaced("o2", 0))));
            await().atMost(WAIT).until(() -> pending().size() == 1);

            time.advanceTimeBy(Duration.ofMinutes(15).minusSeconds(1));
            assertThat(pending()).hasSize(1);
            assertThat(runner.fired()).isZero();

            time.advanceTimeBy(Duration.ofSeconds(1));
            await().atMost(WAIT)
                    .until(() -> count(new Cancel("o2", "no payment")) == 1
                            && pending().isEmpty());
            time.advanceTimeBy(Duration.ofHours(1));

            assertThat(count(new Cancel("o2", "no payment"))).isEqualTo(1);
            assertThat(runner.fired()).isEqualTo(1);
            ProcessInstance<Fulfilment> instance = Shop.instance(process, store, "o2");
            assertThat(instance.state().seen()).containsExactly("placed", "payment-due");
            assertThat(instance.ended()).isTrue();
            runner.stop().block(WAIT);
        }
    }

    @Test
    void aRunnerWiredInTheBuilderFiresWhileTheRuntimeRunsAndStopsWithIt() {
        ProcessManager<Fulfilment> process = Shop.fulfilment(deadlines, clock).build();
        AtomicReference<DeadlineRunner> wired = new AtomicReference<>();
        Lanes lanes = shop.lanes(process, store, deadLetters)
                .deadlines((gateway, parked) -> {
                    assertThat(parked).as("the runtime's dead-letter queue").isSameAs(deadLetters);
                    wired.set(DeadlineRunner.create(
                            deadlines,
                            gateway,
                            parked,
                            clock,
                            time,
                            DeadlineRunner.Settings.DEFAULT.withPollInterval(Duration.ofSeconds(1))));
                    return wired.get();
                })
                .build();
        assertThatThrownBy(() -> Lanes.builder().deadlines(deadlines).deadlines(deadlines))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("deadlines(...) is set already");
        try (lanes) {
            lanes.start();
            send(lanes, order("o7"), new Emit(List.of(new OrderPlaced("o7", 0))));
            await().atMost(WAIT).until(() -> pending().size() == 1);

            time.advanceTimeBy(Duration.ofMinutes(15));
            await().atMost(WAIT)
                    .until(() -> count(new Cancel("o7", "no payment")) == 1
                            && pending().isEmpty());
            assertThat(wired.get().fired()).isEqualTo(1);
        }
        // stopped with the runtime: a deadline due later is not fired by it
        deadlines
                .schedule(new Deadline(
                        "late-o8", order("o8"), "late", clock.instant().plusSeconds(60), new Cancel("o8", "late")))
                .block(WAIT);
        time.advanceTimeBy(Duration.ofHours(1));
        assertThat(wired.get().fired()).isEqualTo(1);
        assertThat(pending()).hasSize(1);
    }

    @Test
    void aDeadlineCancelledBeforeItFiresIsIgnoredWhenAStaleCopyFires() {
        ProcessManager<Fulfilment> process = Shop.fulfilment(deadlines, clock).build();
        try (Lanes lanes = shop.lanes(process, store, deadLetters).build().start()) {
            DeadlineRunner runner = runner(lanes);
            send(lanes, order("o3"), new Emit(List.of(new OrderPlaced("o3", 0))));
            await().atMost(WAIT).until(() -> pending().size() == 1);
            Deadline claimedBeforeTheCancel = pending().get(0);
            send(lanes, payment("p-3"), new Emit(List.of(new PaymentReceived("o3"))));
            await().atMost(WAIT)
                    .until(() -> count(new Ship("o3")) == 1 && pending().isEmpty());

            deadlines.schedule(claimedBeforeTheCancel).block(WAIT); // as if a runner had claimed it already
            time.advanceTimeBy(Duration.ofMinutes(16));
            await().atMost(WAIT).until(() -> runner.fired() == 1);

            assertThat(count(new Cancel("o3", "no payment"))).isZero();
            assertThat(Shop.instance(process, store, "o3").state().seen()).containsExactly("placed", "paid");
            runner.stop().block(WAIT);
        }
    }

    @Test
    void aDeadlineDueWhileTheRuntimeWasStoppedFiresOnceAtTheNextStart() {
        try (Lanes first = shop.lanes(Shop.fulfilment(deadlines, clock).build(), store, deadLetters)
                .build()
                .start()) {
            DeadlineRunner runner = runner(first);
            send(first, order("o4"), new Emit(List.of(new OrderPlaced("o4", 0))));
            await().atMost(WAIT).until(() -> pending().size() == 1);
            runner.stop().block(WAIT);
        }
        time.advanceTimeBy(Duration.ofHours(2)); // nobody runs: nothing fires
        assertThat(pending()).hasSize(1);
        Deadline due = pending().get(0);

        ProcessManager<Fulfilment> restarted = Shop.fulfilment(deadlines, clock).build();
        try (Lanes second = shop.lanes(restarted, store, deadLetters).build().start()) {
            DeadlineRunner runner = runner(second);
            time.advanceTime();
            await().atMost(WAIT)
                    .until(() -> count(new Cancel("o4", "no payment")) == 1
                            && pending().isEmpty());

            deadlines.schedule(due).block(WAIT); // fired again (a runner died before removing it): applied once
            time.advanceTimeBy(Duration.ofSeconds(1));
            await().atMost(WAIT).until(() -> runner.fired() == 2);
            assertThat(count(new Cancel("o4", "no payment"))).isEqualTo(1);
            assertThat(Shop.instance(restarted, store, "o4").state().seen()).containsExactly("placed", "payment-due");
            runner.stop().block(WAIT);
        }
    }

    @Test
    void aDeadlineWhoseHandlerKeepsFailingIsFiredAgainAfterItsBackoffThenParked() {
        AtomicInteger attempts = new AtomicInteger();
        record Explode(String why) {}
        var exploding = AggregateDefinition.builder(Shop.WAREHOUSE, id -> "")
                .handle(Explode.class, (state, explode) -> {
                    attempts.incrementAndGet();
                    throw new IllegalStateException("boom: " + explode.why());
                })
                .apply(Object.class, (state, event) -> state)
                .build();
        try (Lanes lanes = Lanes.builder()
                .aggregate(exploding)
                .deadLetterQueue(deadLetters)
                .commandSettings(LaneSettings.DEFAULT.withRetryPolicy(
                        RetryPolicy.DEFAULT.withMaxRetries(2).withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))))
                .build()
                .start()) {
            DeadlineRunner runner = runner(lanes);
            Deadline deadline = Deadlines.of(deadlines, clock)
                    .scheduleAfter(warehouse("w1"), "explode", Duration.ofMinutes(1), new Explode("late"))
                    .block(WAIT);
            time.advanceTimeBy(Duration.ofMinutes(1));
            await().atMost(WAIT).until(() -> runner.retried() == 1);
            time.advanceTimeBy(Duration.ofSeconds(4)); // not yet: the backoff is 5 s
            assertThat(attempts).hasValue(1);
            time.advanceTimeBy(Duration.ofSeconds(1));
            await().atMost(WAIT).until(() -> runner.retried() == 2);
            assertThat(pending()).hasSize(1);
            time.advanceTimeBy(Duration.ofSeconds(5));
            await().atMost(WAIT).until(() -> runner.parked() == 1);

            assertThat(attempts).hasValue(3);
            assertThat(pending()).isEmpty();
            var parked = deadLetters
                    .list("commands:" + Shop.WAREHOUSE.materialize(), warehouse("w1"))
                    .block(WAIT);
            assertThat(parked).hasSize(1);
            assertThat(parked.get(0).command().requestId()).isEqualTo("deadline:" + deadline.id());
            runner.stop().block(WAIT);
        }
    }

    @Test
    void aReactionThatKeepsFailingIsRetriedThenParkedBehindItsSourceAggregate() {
        AtomicInteger attempts = new AtomicInteger();
        ProcessManager<Fulfilment> process = ProcessManager.builder(
                        "fragile", Shop.FULFILMENT, Fulfilment.class, key -> new Fulfilment(key, List.of()))
                .startOn(Shop.ORDER, OrderPlaced.class, OrderPlaced::orderId, (state, placed, context) -> {
                    attempts.incrementAndGet();
                    throw new IllegalStateException("no stock table for " + placed.orderId());
                })
                .deadlines(deadlines, clock)
                .build();
        try (Lanes lanes = shop.lanes(process, store, deadLetters)
                .eventSettings(LaneSettings.DEFAULT.withRetryPolicy(
                        RetryPolicy.DEFAULT.withMaxRetries(2).withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))))
                .build()
                .start()) {
            send(lanes, order("o5"), new Emit(List.of(new OrderPlaced("o5", 0))));
            await().atMost(WAIT)
                    .until(() -> !deadLetters
                            .list("fragile", order("o5"))
                            .block(WAIT)
                            .isEmpty());

            assertThat(attempts).hasValue(1); // the reply is retried, the input runs again when the letter is retried
            var letter = deadLetters.list("fragile", order("o5")).block(WAIT).get(0);
            assertThat(letter.reason()).contains("no stock table for o5");
            assertThat(letter.attempts()).isEqualTo(3);
            assertThat(store.load(process.instance("o5"), 1).collectList().block(WAIT))
                    .isEmpty();
        }
    }

    @Test
    void eventsOfOneInstanceRunOneAtATimeInOrderWhileOtherInstancesRun() throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        Map<String, Integer> mostAtOnce = new ConcurrentHashMap<>();
        Map<String, Queue<Integer>> handled = new ConcurrentHashMap<>();
        ProcessReaction<Fulfilment, Object> reaction = (state, event, context) -> {
            String key = context.key();
            int step = event instanceof OrderPlaced placed ? placed.step() : ((OrderAmended) event).step();
            int now = inFlight.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
            mostAtOnce.merge(key, now, Math::max);
            try {
                if (key.equals("a") && step == 1) {
                    entered.countDown();
                    release.await(WAIT.toSeconds(), TimeUnit.SECONDS); // holds instance a's lane
                }
                handled.computeIfAbsent(key, k -> new ConcurrentLinkedQueue<>()).add(step);
                return state.with("step " + step);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            } finally {
                inFlight.get(key).decrementAndGet();
            }
        };
        ProcessManager<Fulfilment> process = ProcessManager.builder(
                        "ordering", Shop.FULFILMENT, Fulfilment.class, key -> new Fulfilment(key, List.of()))
                .startOn(Shop.ORDER, OrderPlaced.class, OrderPlaced::orderId, reaction)
                .on(Shop.ORDER, OrderAmended.class, OrderAmended::orderId, reaction)
                .deadlines(deadlines, clock)
                .build();
        try (Lanes lanes = shop.lanes(process, store, deadLetters).build().start()) {
            send(lanes, order("a"), new Emit(List.of(new OrderPlaced("a", 0), new OrderAmended("a", 1))));
            send(lanes, order("a"), new Emit(List.of(new OrderAmended("a", 2))));
            send(lanes, order("a"), new Emit(List.of(new OrderAmended("a", 3))));
            assertThat(entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

            send(lanes, order("b"), new Emit(List.of(new OrderPlaced("b", 0), new OrderAmended("b", 1))));
            await().atMost(WAIT)
                    .until(() -> handled.getOrDefault("b", new ConcurrentLinkedQueue<>())
                                    .size()
                            == 2);
            assertThat(handled.get("a")).containsExactly(0); // a's step 1 still runs: 2 and 3 wait behind it

            release.countDown();
            await().atMost(WAIT).until(() -> handled.get("a").size() == 4);
            assertThat(handled.get("a")).containsExactly(0, 1, 2, 3);
            assertThat(mostAtOnce).containsEntry("a", 1).containsEntry("b", 1);
            assertThat(Shop.instance(process, store, "a").state().seen())
                    .containsExactly("step 0", "step 1", "step 2", "step 3");
        }
    }

    @Test
    void aDeadlineNameWithoutAReactionIsRefusedNamingTheProcess() {
        ProcessManager<Fulfilment> process = ProcessManager.builder(
                        "typo", Shop.FULFILMENT, Fulfilment.class, key -> new Fulfilment(key, List.of()))
                .startOn(Shop.ORDER, OrderPlaced.class, OrderPlaced::orderId, (state, placed, context) -> {
                    context.scheduleAfter("paymnet-due", Duration.ofMinutes(1));
                    return state;
                })
                .onDeadline("payment-due", (state, due, context) -> state)
                .deadlines(deadlines, clock)
                .build();
        var fresh = process.definition().initial(process.instance("x")).state();
        assertThatThrownBy(() -> process.definition()
                        .decide(fresh, new OrderPlaced("x", 0))
                        .block(WAIT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("typo")
                .hasMessageContaining("paymnet-due")
                .hasMessageContaining("[payment-due]");
    }

    @Test
    void aProcessThatStartsOnNothingIsRefusedAtBuild() {
        assertThatThrownBy(() -> ProcessManager.builder(
                                "idle", Shop.FULFILMENT, Fulfilment.class, key -> new Fulfilment(key, List.of()))
                        .on(Shop.ORDER, OrderPlaced.class, OrderPlaced::orderId, (state, placed, context) -> state)
                        .deadlines(deadlines, clock)
                        .build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("idle starts on no event");
    }
}
