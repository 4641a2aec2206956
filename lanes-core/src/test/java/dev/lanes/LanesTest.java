package dev.lanes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandBuses;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResult;
import dev.lanes.command.CommandResults;
import dev.lanes.command.StageNotReachedException;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.CheckpointStores;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.deadletter.DeadLetterSequence;
import dev.lanes.processing.deadletter.RetryOutcome;
import dev.lanes.processing.tracking.TrackingProcessor;
import dev.lanes.runtime.ComponentReport;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/** One entry point wires a whole service: commands, projection, saga, graceful stop; and refuses what cannot work. */
class LanesTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    static final NamedAggregate CART = NamedAggregate.of("shop", "cart");
    static final NamedAggregate INVOICE = NamedAggregate.of("shop", "invoice");

    record Add(String sku, int quantity) {}

    record Checkout() {}

    record Added(String sku, int quantity) {}

    record CheckedOut(int items) {}

    record Cart(int items, boolean checkedOut) {}

    record Issue(int items) {}

    record Issued(int items) {}

    static AggregateDefinition<Cart> cart() {
        return AggregateDefinition.<Cart>builder(CART, id -> new Cart(0, false))
                .handle(Add.class, (cart, add) -> {
                    if (cart.checkedOut()) {
                        throw new IllegalStateException("cart is checked out");
                    }
                    return List.of(new Added(add.sku(), add.quantity()));
                })
                .handle(Checkout.class, (cart, checkout) -> List.of(new CheckedOut(cart.items())))
                .apply(Added.class, (cart, added) -> new Cart(cart.items() + added.quantity(), false))
                .apply(CheckedOut.class, (cart, checkedOut) -> new Cart(cart.items(), true))
                .build();
    }

    static AggregateDefinition<Integer> invoice() {
        return AggregateDefinition.<Integer>builder(INVOICE, id -> 0)
                .handle(Issue.class, (items, issue) -> List.of(new Issued(issue.items())))
                .apply(Issued.class, (items, issued) -> issued.items())
                .build();
    }

    /** A read model: items per cart. */
    private final Map<String, Integer> itemsPerCart = new ConcurrentHashMap<>();

    private EventProcessor cartItems() {
        return EventProcessor.builder("CartItems", ProcessorKind.PROJECTION)
                .on(
                        CART,
                        Added.class,
                        (added, context) -> Mono.fromRunnable(
                                () -> itemsPerCart.merge(context.aggregateId().id(), added.quantity(), Integer::sum)))
                .build();
    }

    /** A saga: a checked-out cart gets an invoice of the same id. */
    static EventProcessor invoicing(CommandGateway gateway) {
        return EventProcessor.saga("Invoicing", gateway)
                .on(CART, CheckedOut.class, (checkedOut, context) -> {
                    context.send(
                            AggregateId.of(
                                    INVOICE, context.event().aggregateId().id()),
                            new Issue(checkedOut.items()));
                    return Mono.empty();
                })
                .build();
    }

    @Nested
    class EndToEnd {

        @Test
        void theWiredServiceProcessesProjectsRunsItsSagaAndStopsGracefully() {
            Lanes lanes = Lanes.builder()
                    .aggregate(cart())
                    .aggregate(invoice())
                    .processor(cartItems())
                    .processor(LanesTest::invoicing)
                    .build();
            assertThat(lanes.runtime().state()).as("build starts nothing").isEqualTo(LanesRuntime.State.NEW);

            lanes.start();
            AggregateId cart = AggregateId.of(CART, "c-1");
            CommandResult first = lanes.gateway()
                    .send(cart, new Add("apple", 2), WaitStage.PROCESSED)
                    .block(TIMEOUT);
            CommandResult second = lanes.gateway()
                    .send(cart, new Add("pear", 3), WaitStage.PROJECTED)
                    .block(TIMEOUT);
            assertThat(itemsPerCart).as("read your writes").containsEntry("c-1", 5);
            lanes.gateway().send(cart, new Checkout(), WaitStage.PROCESSED).block(TIMEOUT);
            AggregateId invoice = AggregateId.of(INVOICE, "c-1");
            await().atMost(TIMEOUT)
                    .until(() -> !lanes.eventStore()
                            .load(invoice, 1)
                            .collectList()
                            .block(TIMEOUT)
                            .isEmpty());

            ShutdownReport report = lanes.runtime().shutdown().block(TIMEOUT);

            assertThat(first.stage()).isEqualTo(WaitStage.PROCESSED);
            assertThat(first.version()).isEqualTo(1);
            assertThat(first.events()).containsExactly(new Added("apple", 2));
            assertThat(second.stage()).isEqualTo(WaitStage.PROJECTED);
            assertThat(second.version()).isEqualTo(2);
            assertThat(report.graceful()).as(report.toString()).isTrue();
            assertThat(report.components())
                    .as("the command side first, so the event side drains last; the command dead letters' polling"
                            + " stops first")
                    .extracting(ComponentReport::name, ComponentReport::outcome)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("CommandDispatcher", ComponentReport.Outcome.DRAINED),
                            org.assertj.core.groups.Tuple.tuple("EventDispatcher", ComponentReport.Outcome.DRAINED),
                            org.assertj.core.groups.Tuple.tuple("CommandDeadLetters", ComponentReport.Outcome.DRAINED));
            assertThat(lanes.eventStore()
                            .load(cart, 1)
                            .map(DomainEventStream::version)
                            .collectList()
                            .block(TIMEOUT))
                    .containsExactly(1, 2, 3);
            assertThat(lanes.eventStore()
                            .load(invoice, 1)
                            .flatMapIterable(DomainEventStream::payloads)
                            .collectList()
                            .block(TIMEOUT))
                    .containsExactly(new Issued(5));
            assertThat(lanes.commandResults().inFlight()).isZero();
            assertThat(lanes.runtime().state()).isEqualTo(LanesRuntime.State.STOPPED);
        }

        @Test
        void withoutProcessorsOnlyTheCommandSideRunsAndCloseStopsIt() {
            EventStore store = EventStores.inMemory();
            Lanes lanes;
            try (Lanes running =
                    Lanes.builder().aggregate(cart()).eventStore(store).build().start()) {
                lanes = running;
                lanes.gateway()
                        .send(AggregateId.of(CART, "c-2"), new Add("fig", 1), WaitStage.PROCESSED)
                        .block(TIMEOUT);
                assertThat(lanes.eventDispatcher()).isEmpty();
                assertThat(lanes.eventStore()).isSameAs(store);
            }

            assertThat(lanes.runtime().state()).isEqualTo(LanesRuntime.State.STOPPED);
            assertThat(lanes.runtime().shutdown().block(TIMEOUT).components())
                    .extracting(ComponentReport::name)
                    .containsExactly("CommandDispatcher", "CommandDeadLetters");
            assertThat(store.load(AggregateId.of(CART, "c-2"), 1).count().block(TIMEOUT))
                    .isOne();
        }

        @Test
        void infrastructureComponentsStartBeforeTheDispatchersAndStopAfterThemInReverse() {
            List<String> calls = new CopyOnWriteArrayList<>();
            Lanes lanes = Lanes.builder()
                    .aggregate(cart())
                    .processor(cartItems())
                    .component(new Infrastructure("connection", calls))
                    .component(new Infrastructure("consumers", calls))
                    .build();

            lanes.start();
            lanes.stop();

            assertThat(lanes.runtime().shutdown().block(TIMEOUT).components())
                    .extracting(ComponentReport::name)
                    .containsExactly(
                            "connection", "consumers", "CommandDispatcher", "EventDispatcher", "CommandDeadLetters");
            assertThat(calls)
                    .containsExactly(
                            "prepare:connection",
                            "prepare:consumers",
                            "start:connection",
                            "start:consumers",
                            "stop:consumers",
                            "stop:connection");
        }

        @Test
        void theCommandBusFactoryIsGivenTheResultsTheSendersWaitIn() {
            List<CommandResults> given = new CopyOnWriteArrayList<>();
            try (Lanes lanes = Lanes.builder()
                    .aggregate(cart())
                    .commandBus(results -> {
                        given.add(results);
                        return CommandBuses.inMemory(4, results);
                    })
                    .build()
                    .start()) {
                CommandResult result = lanes.gateway()
                        .send(AggregateId.of(CART, "c-bus"), new Add("kiwi", 1), WaitStage.PROCESSED)
                        .block(TIMEOUT);

                assertThat(result.version()).isOne();
                assertThat(given).containsExactly(lanes.commandResults());
            }
        }

        @Test
        void aHandlersFailureReachesItsSenderUnchanged() {
            try (Lanes lanes = Lanes.builder().aggregate(cart()).build().start()) {
                AggregateId cart = AggregateId.of(CART, "c-3");
                lanes.gateway().send(cart, new Checkout(), WaitStage.PROCESSED).block(TIMEOUT);

                assertThatIllegalStateException()
                        .isThrownBy(() -> lanes.gateway()
                                .send(cart, new Add("late", 1), WaitStage.PROCESSED)
                                .block(TIMEOUT))
                        .withMessage("cart is checked out");
            }
        }

        @Test
        void sendersWaitTheCommandTimeoutOnTheGivenTimer() {
            VirtualTimeScheduler time = VirtualTimeScheduler.create();
            Lanes lanes = Lanes.builder()
                    .aggregate(cart())
                    .commandTimeout(Duration.ofSeconds(5))
                    .timer(time)
                    .build();
            // not started: the bus holds the command, nothing takes it
            CompletableFuture<CommandResult> outcome = lanes.gateway()
                    .send(AggregateId.of(CART, "c-4"), new Add("kiwi", 1), WaitStage.PROCESSED)
                    .toFuture();

            time.advanceTimeBy(Duration.ofSeconds(4));
            assertThat(outcome).isNotDone();
            time.advanceTimeBy(Duration.ofSeconds(1));

            assertThat(outcome)
                    .failsWithin(Duration.ZERO)
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOfSatisfying(
                            StageNotReachedException.class,
                            notReached -> assertThat(notReached.reason())
                                    .isEqualTo(StageNotReachedException.Reason.TIMED_OUT));
            lanes.runtime().forceStop();
        }

        @Test
        void eachDispatcherGetsASupplierOfItsOwnNamedAfterIt() {
            List<String> asked = new CopyOnWriteArrayList<>();
            Map<String, String> threads = new ConcurrentHashMap<>();
            EventProcessor watcher = EventProcessor.builder("Watcher", ProcessorKind.HANDLER)
                    .on(
                            CART,
                            Added.class,
                            (added, context) -> Mono.fromRunnable(() ->
                                    threads.put("event", Thread.currentThread().getName())))
                    .build();
            try (Lanes lanes = Lanes.builder()
                    .aggregate(cart())
                    .processor(watcher)
                    .schedulers(name -> {
                        asked.add(name);
                        return AggregateSchedulers.sharedPool(name, 1);
                    })
                    .build()
                    .start()) {
                lanes.gateway()
                        .send(AggregateId.of(CART, "c-5"), new Add("lime", 1), WaitStage.PROCESSED)
                        .block(TIMEOUT);
                await().atMost(TIMEOUT).until(() -> threads.containsKey("event"));
            }

            assertThat(asked).containsExactly("CommandDispatcher", "EventDispatcher");
            assertThat(threads.get("event")).startsWith("EventDispatcher-shared-");
        }

        @Test
        void withSharedWorkersBothDispatchersRunOnOnePoolThatTheRuntimeStopsAfterThem() {
            Map<String, String> threads = new ConcurrentHashMap<>();
            AggregateDefinition<Integer> invoices = AggregateDefinition.<Integer>builder(INVOICE, id -> 0)
                    .handle(Issue.class, (items, issue) -> {
                        threads.put("command", Thread.currentThread().getName());
                        return List.of(new Issued(issue.items()));
                    })
                    .apply(Issued.class, (items, issued) -> issued.items())
                    .build();
            EventProcessor watcher = EventProcessor.builder("Watcher", ProcessorKind.HANDLER)
                    .on(
                            INVOICE,
                            Issued.class,
                            (issued, context) -> Mono.fromRunnable(() ->
                                    threads.put("event", Thread.currentThread().getName())))
                    .build();
            Lanes lanes = Lanes.builder()
                    .aggregate(invoices)
                    .processor(watcher)
                    .sharedWorkers(1)
                    .build()
                    .start();
            lanes.gateway()
                    .send(AggregateId.of(INVOICE, "i-1"), new Issue(3), WaitStage.PROJECTED)
                    .block(TIMEOUT);

            ShutdownReport report = lanes.runtime().shutdown().block(TIMEOUT);

            assertThat(threads.get("command")).isEqualTo("Workers-shared-1");
            assertThat(threads.get("event")).isEqualTo("Workers-shared-1");
            assertThat(report.graceful()).as(report.toString()).isTrue();
            assertThat(report.components())
                    .extracting(ComponentReport::name)
                    .as("the pool first, so the runtime, stopping in reverse order, stops it last")
                    .containsExactly("Workers", "CommandDispatcher", "EventDispatcher", "CommandDeadLetters");
            assertThat(report.components())
                    .allMatch(component -> component.outcome() == ComponentReport.Outcome.DRAINED);
            // the pool has terminated; its last thread may still be on its way out of run()
            await().atMost(TIMEOUT)
                    .until(() -> Thread.getAllStackTraces().keySet().stream()
                            .noneMatch(thread -> thread.getName().startsWith("Workers-shared-") && thread.isAlive()));
        }

        @Test
        void aSecondStartIsRefusedNamingTheState() {
            try (Lanes lanes = Lanes.builder().aggregate(cart()).build().start()) {
                assertThatIllegalStateException()
                        .isThrownBy(lanes::start)
                        .withMessageContaining("only be started once")
                        .withMessageContaining("RUNNING");
            }
        }
    }

    @Nested
    class Validation {

        @Test
        void sharedWorkersOutOfRangeAreRefusedNamingTheValue() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> Lanes.builder().sharedWorkers(0))
                    .withMessage("sharedWorkers must be positive: 0");
        }

        @Test
        void withoutAnAggregateBuildIsRefused() {
            assertThatIllegalStateException()
                    .isThrownBy(() -> Lanes.builder().processor(cartItems()).build())
                    .withMessageContaining("at least one aggregate");
        }

        @Test
        void anAggregateTypeRegisteredTwiceIsRefusedNamingIt() {
            Lanes.Builder builder = Lanes.builder().aggregate(cart());

            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder.aggregate(cart()))
                    .withMessageStartingWith("aggregate shop.cart is registered twice");
        }

        @Test
        void twoProcessorsOfOneNameAreRefusedNamingIt() {
            Lanes.Builder builder =
                    Lanes.builder().aggregate(cart()).processor(cartItems()).processor(cartItems());

            assertThatIllegalArgumentException()
                    .isThrownBy(builder::build)
                    .withMessageStartingWith("processor 'CartItems' is registered twice");
        }

        @Test
        void aProcessorOfATypeNoAggregateRegistersIsRefusedOnTheInMemoryBus() {
            Lanes.Builder builder = Lanes.builder().aggregate(invoice()).processor(cartItems());

            assertThatIllegalArgumentException()
                    .isThrownBy(builder::build)
                    .withMessageContaining("processor 'CartItems' handles events of shop.cart")
                    .withMessageContaining("registered: shop.invoice");
        }

        @Test
        void aProcessorOfAnotherServicesTypeIsAcceptedOnABusGivenToIt() {
            Lanes lanes = Lanes.builder()
                    .aggregate(invoice())
                    .processor(cartItems())
                    .eventBus(DomainEventBuses.inMemory(16))
                    .build();

            assertThat(lanes.eventDispatcher()).isPresent();
            lanes.runtime().forceStop();
        }

        @Test
        void aQuietPeriodNotShorterThanTheShutdownTimeoutIsRefusedNamingBoth() {
            Lanes.Builder builder = Lanes.builder()
                    .aggregate(cart())
                    .shutdownTimeout(Duration.ofSeconds(1))
                    .quietPeriod(Duration.ofSeconds(1));

            assertThatIllegalArgumentException()
                    .isThrownBy(builder::build)
                    .withMessage("quietPeriod must be shorter than shutdownTimeout: PT1S >= PT1S");
        }

        @Test
        void badValuesAreRefusedAtOnceNamingTheSetting() {
            Lanes.Builder builder = Lanes.builder();

            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder.commandBusCapacity(0))
                    .withMessage("commandBusCapacity must be positive: 0");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder.quietPeriod(Duration.ofMillis(-1)))
                    .withMessage("quietPeriod must not be negative: PT-0.001S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder.shutdownTimeout(Duration.ZERO))
                    .withMessage("shutdownTimeout must be positive: PT0S");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder.commandTimeout(Duration.ZERO))
                    .withMessage("commandTimeout must be positive: PT0S");
            assertThatNullPointerException()
                    .isThrownBy(() -> builder.eventStore(null))
                    .withMessage("eventStore");
        }

        @Test
        void oneSupplierForBothDispatchersIsRefused() {
            AggregateSchedulerSupplier shared = AggregateSchedulers.perType("shared", 1);
            Lanes.Builder builder =
                    Lanes.builder().aggregate(cart()).processor(cartItems()).schedulers(name -> shared);

            assertThatIllegalArgumentException()
                    .isThrownBy(builder::build)
                    .withMessageContaining("one supplier for CommandDispatcher and EventDispatcher")
                    .withMessageContaining("AggregateSchedulerSupplier[shared]");
        }

        @Test
        void aComponentAddedTwiceIsRefusedNamingIt() {
            Infrastructure connection = new Infrastructure("connection", new CopyOnWriteArrayList<>());
            Lanes.Builder builder = Lanes.builder().component(connection);

            assertThatIllegalArgumentException()
                    .isThrownBy(() -> builder.component(connection))
                    .withMessage("component connection is added twice");
        }

        @Test
        void aCommandBusFactoryThatReturnsNullIsRefused() {
            Lanes.Builder builder = Lanes.builder().aggregate(cart()).commandBus(results -> null);

            assertThatNullPointerException().isThrownBy(builder::build).withMessageContaining("returned null");
        }

        @Test
        void aProcessorFactoryThatReturnsNullIsRefused() {
            Lanes.Builder builder = Lanes.builder().aggregate(cart()).processor(gateway -> null);

            assertThatNullPointerException().isThrownBy(builder::build).withMessageContaining("returned null");
        }
    }

    @Nested
    class TrackingProcessors {
        private final CheckpointStore checkpoints = CheckpointStores.inMemory();
        /** While set, the tracked projection fails on 2 pears. */
        private volatile boolean poisoned = true;

        private final List<Integer> trackedQuantities = new CopyOnWriteArrayList<>();

        private EventProcessor trackedCarts(String name) {
            return EventProcessor.builder(name, ProcessorKind.PROJECTION)
                    .on(
                            CART,
                            Added.class,
                            (added, context) -> Mono.fromRunnable(() -> {
                                if (poisoned && added.sku().equals("pear")) {
                                    throw new IllegalStateException("poison: " + added);
                                }
                                trackedQuantities.add(added.quantity());
                            }))
                    .build();
        }

        @Test
        void aTrackingProcessorParksInTheRuntimesQueueAndLanesDeadLettersRetriesItInItsLane() {
            DeadLetterQueue queue = DeadLetterQueues.inMemory();
            Lanes lanes = Lanes.builder()
                    .aggregate(cart())
                    .processor(cartItems())
                    .deadLetterQueue(queue)
                    .trackingProcessor((store, parked) -> TrackingProcessor.builder(
                                    trackedCarts("TrackedCarts"), store, checkpoints)
                            .laneSettings(LaneSettings.DEFAULT.withRetryPolicy(RetryPolicy.NONE))
                            .deadLetterQueue(parked)
                            .build())
                    .build()
                    .start();
            AggregateId cart = AggregateId.of(CART, "c-1");
            for (Add add : List.of(new Add("apple", 1), new Add("pear", 2), new Add("plum", 3))) {
                lanes.gateway().send(cart, add, WaitStage.PROCESSED).block(TIMEOUT);
            }

            await().atMost(TIMEOUT)
                    .until(() -> queue.list("TrackedCarts", cart).block(TIMEOUT).size() == 2);
            assertThat(trackedQuantities).as("the plum waits behind the pear").containsExactly(1);
            assertThat(lanes.deadLetters().processors())
                    .containsExactlyInAnyOrder("CartItems", "TrackedCarts", "commands:shop.cart");
            assertThat(lanes.deadLetters().sequences().block(TIMEOUT))
                    .extracting(DeadLetterSequence::processor)
                    .containsExactly("TrackedCarts");

            poisoned = false;
            assertThat(lanes.deadLetters().retry("TrackedCarts", cart).block(TIMEOUT))
                    .isEqualTo(new RetryOutcome("TrackedCarts", cart, 2, 0, 0, null));
            assertThat(trackedQuantities).containsExactly(1, 2, 3);
            assertThat(itemsPerCart).containsEntry("c-1", 6);
            lanes.stop();
        }

        @Test
        void aTrackingProcessorWithAQueueOfItsOwnIsRefusedNamingBoth() {
            Lanes.Builder builder = Lanes.builder()
                    .aggregate(cart())
                    .trackingProcessor((store, parked) -> TrackingProcessor.builder(
                                    trackedCarts("TrackedCarts"), store, checkpoints)
                            .build());

            assertThatIllegalArgumentException()
                    .isThrownBy(builder::build)
                    .withMessageContaining("Tracking-TrackedCarts")
                    .withMessageContaining("not in this instance's dead-letter queue")
                    .withMessageContaining(".deadLetterQueue(");
        }

        @Test
        void aTrackingProcessorNamedAsABusFedOneIsRefusedNamingIt() {
            Lanes.Builder builder = Lanes.builder()
                    .aggregate(cart())
                    .processor(cartItems())
                    .trackingProcessor(
                            (store, parked) -> TrackingProcessor.builder(trackedCarts("CartItems"), store, checkpoints)
                                    .deadLetterQueue(parked)
                                    .build());

            assertThatIllegalArgumentException()
                    .isThrownBy(builder::build)
                    .withMessageStartingWith("processor 'CartItems' is registered twice");
        }
    }

    /** A component of the infrastructure that records its prepare, start and stop as {@code "<call>:<name>"}. */
    private static final class Infrastructure implements RuntimeComponent {
        private final String name;
        private final List<String> calls;

        Infrastructure(String name, List<String> calls) {
            this.name = name;
            this.calls = calls;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Mono<Void> prepare(RuntimeContext context) {
            return Mono.fromRunnable(() -> calls.add("prepare:" + name));
        }

        @Override
        public void start() {
            calls.add("start:" + name);
        }

        @Override
        public void quiesce() {}

        @Override
        public Mono<Void> stopGracefully() {
            return Mono.fromRunnable(() -> calls.add("stop:" + name));
        }

        @Override
        public void forceStop() {
            calls.add("force:" + name);
        }
    }
}
