package dev.lanes.processing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.dispatch.ParkedMessage;
import dev.lanes.event.DomainEventBus;
import dev.lanes.internal.route.LocalExchange;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import dev.lanes.test.logging.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.test.StepVerifier;

/** The equivalents of the original CompositeEventDispatcherLifecycleTest, and more. */
class CompositeEventDispatcherLifecycleTest {
    private static final Duration PROMPTLY = Duration.ofSeconds(5);
    private static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");

    private final List<String> log = new CopyOnWriteArrayList<>();
    private final RecordingBus bus = new RecordingBus(log);
    private final CountingSupplier supplier = new CountingSupplier(log);

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    @AfterEach
    void release() {
        supplier.delegate.forceStop();
    }

    private static EventProcessor processor(String name, List<String> handled) {
        return EventProcessor.builder(name, ProcessorKind.HANDLER)
                .on(
                        ORDER,
                        Object.class,
                        (event, context) -> Mono.fromRunnable(() ->
                                handled.add(name + ":" + context.aggregateId().id())))
                .build();
    }

    private CompositeEventDispatcher composite(List<String> handled, String... names) {
        CompositeEventDispatcher.Builder builder =
                CompositeEventDispatcher.builder("EventDispatcher", bus).schedulers(supplier);
        for (String name : names) {
            builder.processor(processor(name, handled));
        }
        return builder.build();
    }

    @Test
    void aReplayOfAParkedStreamRunsItsFunctionsOnlyWhenSubscribed() {
        List<String> handled = new CopyOnWriteArrayList<>();
        CompositeEventDispatcher composite = composite(handled, "first");
        DomainEventStream stream =
                DomainEventStream.of(CommandMessage.of(AggregateId.of(ORDER, "o-9"), "Place"), 1, List.of("placed"));
        ParkedMessage parked = new ParkedMessage(
                "first", stream.aggregateId(), stream, new IllegalStateException("down"), 3, java.time.Instant.now());

        Mono<Boolean> replay = composite.replay(parked);
        assertThat(handled).as("assembled, not subscribed").isEmpty();

        StepVerifier.create(replay).expectNext(true).verifyComplete();
        assertThat(handled).containsExactly("first:o-9");
    }

    @Test
    void childrenGetBorrowedViewsAndOneChildsStopOrForceNeverDisposesTheSharedSchedulers() {
        List<String> handled = new CopyOnWriteArrayList<>();
        CompositeEventDispatcher composite = composite(handled, "first", "second");
        composite.prepare(RuntimeContext.standalone()).block(PROMPTLY);
        composite.start();
        Scheduler shared = supplier.getOrInitialize(ORDER);

        RuntimeComponent first = composite.children().get(0);
        first.stopGracefully().block(PROMPTLY);
        first.forceStop();

        assertThat(shared.isDisposed()).isFalse();
        assertThat(supplier.gracefulStops.get() + supplier.forceStops.get()).isZero();
        bus.publishTo("second", stream("o-1")).block(PROMPTLY);
        org.awaitility.Awaitility.await().atMost(PROMPTLY).until(() -> handled.contains("second:o-1"));
        assertThat(((ProcessorDispatcher) first).dispatchers().get(0).toString())
                .contains("first");
        assertThat(AggregateSchedulers.borrowed(supplier).getOrInitialize(ORDER))
                .isSameAs(shared);
    }

    @Test
    void everyChildSubscribesBeforeAnyChildReceivesDemand() {
        CompositeEventDispatcher composite = composite(new CopyOnWriteArrayList<>(), "first", "second");
        composite.prepare(RuntimeContext.standalone()).block(PROMPTLY);
        assertThat(log).containsExactly("subscribe:first", "subscribe:second");
        composite.start();
        assertThat(log.subList(0, 2)).containsExactly("subscribe:first", "subscribe:second");
        assertThat(log.subList(2, log.size())).allMatch(entry -> entry.startsWith("request:"));
    }

    @Test
    void aChildFailingToPrepareFailsTheCompositeAndTheSupplierIsStillStoppedExactlyOnce() {
        IllegalStateException broken = new IllegalStateException("broker refused the subscription");
        bus.failSubscriptionOf("second", broken);
        CompositeEventDispatcher composite = composite(new CopyOnWriteArrayList<>(), "first", "second", "third");
        LanesRuntime runtime = new LanesRuntime(List.of(composite), Duration.ofSeconds(10), Duration.ZERO);

        StepVerifier.create(runtime.start())
                .expectErrorSatisfies(error -> assertThat(error).hasRootCause(broken))
                .verify(PROMPTLY);

        assertThat(log).doesNotContain("subscribe:third").noneMatch(entry -> entry.startsWith("request:"));
        assertThat(supplier.gracefulStops).hasValue(1);
        assertThat(supplier.forceStops).hasValue(0);
        assertThat(logs.lines(Level.ERROR))
                .as("the fault is logged naming the failed child, with its cause")
                .anySatisfy(line -> {
                    assertThat(line.message()).contains("second");
                    assertThat(line.details()).contains("Caused by: " + broken);
                });
    }

    @Test
    void aChildFailingToStartStopsTheOthersFromStartingAndTheSupplierIsStoppedOnce() {
        CompositeEventDispatcher composite = composite(new CopyOnWriteArrayList<>(), "first", "second");
        RuntimeComponent failing = new FailingStart();
        LanesRuntime runtime = new LanesRuntime(List.of(failing, composite), Duration.ofSeconds(10), Duration.ZERO);

        StepVerifier.create(runtime.start()).expectErrorMessage("cannot start").verify(PROMPTLY);

        assertThat(log).noneMatch(entry -> entry.startsWith("request:"));
        assertThat(supplier.gracefulStops).hasValue(1);
    }

    @Test
    void gracefulStopClosesEveryChildsIntakeThenDrainsThenStopsTheSupplierOnce() {
        CompositeEventDispatcher composite = composite(new CopyOnWriteArrayList<>(), "first", "second");
        composite.prepare(RuntimeContext.standalone()).block(PROMPTLY);
        composite.start();
        log.clear();

        composite.stopGracefully().block(PROMPTLY);
        composite.stopGracefully().block(PROMPTLY);

        org.awaitility.Awaitility.await()
                .atMost(PROMPTLY)
                .until(() -> log.contains("cancel:first") && log.contains("cancel:second"));
        assertThat(log.indexOf("stop:supplier")).isEqualTo(log.lastIndexOf("stop:supplier"));
        assertThat(supplier.gracefulStops).hasValue(1);
        assertThat(supplier.getOrInitializeFailsAfterStop()).isTrue();
    }

    @Test
    void forceForcesChildrenAndSupplierPromptlyEvenWhenASourceCancelBlocks() throws InterruptedException {
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch cancelEntered = new CountDownLatch(1);
        bus.blockCancelOf("first", never, cancelEntered);
        CompositeEventDispatcher composite = composite(new CopyOnWriteArrayList<>(), "first", "second");
        composite.prepare(RuntimeContext.standalone()).block(PROMPTLY);
        composite.start();

        long started = System.nanoTime();
        composite.forceStop();
        // run inline, the blocked cancel would hold the caller until the end of the test
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(PROMPTLY);

        assertThat(supplier.forceStops).hasValue(1);
        assertThat(cancelEntered.await(5, TimeUnit.SECONDS)).isTrue();
        never.countDown();
    }

    @Test
    void aForceBeforeTheGracefulStopIsSubscribedMakesTheSuppliersGracefulStopANoOp() {
        CompositeEventDispatcher composite = composite(new CopyOnWriteArrayList<>(), "first");
        composite.prepare(RuntimeContext.standalone()).block(PROMPTLY);
        composite.start();
        Mono<Void> graceful = composite.stopGracefully();

        composite.forceStop();
        graceful.block(PROMPTLY);

        assertThat(supplier.gracefulStops).hasValue(0);
        assertThat(supplier.forceStops).hasValue(1);
    }

    private static DomainEventStream stream(String id) {
        return DomainEventStream.of(CommandMessage.of(AggregateId.of(ORDER, id), "command"), 1, List.of("event"));
    }

    /** A bus whose receivers record subscribe, request and cancel, and can be made to fail or block. */
    static final class RecordingBus implements DomainEventBus {
        private final List<String> log;
        private final Map<String, Sinks.Many<MessageExchange<DomainEventStream>>> sinks = new ConcurrentHashMap<>();
        private final Map<String, RuntimeException> failing = new ConcurrentHashMap<>();
        private final Map<String, CountDownLatch[]> blocking = new ConcurrentHashMap<>();

        RecordingBus(List<String> log) {
            this.log = log;
        }

        void failSubscriptionOf(String group, RuntimeException error) {
            failing.put(group, error);
        }

        void blockCancelOf(String group, CountDownLatch release, CountDownLatch entered) {
            blocking.put(group, new CountDownLatch[] {release, entered});
        }

        Mono<Void> publishTo(String group, DomainEventStream stream) {
            return Mono.fromRunnable(() -> sinks.get(group)
                    .tryEmitNext(new LocalExchange<>(stream, stream.aggregateId(), () -> {}, reason -> {})));
        }

        @Override
        public Mono<Void> publish(DomainEventStream stream) {
            return Flux.fromIterable(sinks.keySet())
                    .concatMap(group -> publishTo(group, stream))
                    .then();
        }

        @Override
        public Flux<MessageExchange<DomainEventStream>> receive(String group, NamedAggregate namedAggregate) {
            RuntimeException error = failing.get(group);
            if (error != null) {
                return Flux.error(error);
            }
            Sinks.Many<MessageExchange<DomainEventStream>> sink =
                    Sinks.many().unicast().onBackpressureBuffer();
            sinks.put(group, sink);
            return sink.asFlux()
                    .doOnSubscribe(s -> log.add("subscribe:" + group))
                    .doOnRequest(n -> log.add("request:" + group))
                    .doOnCancel(() -> {
                        log.add("cancel:" + group);
                        CountDownLatch[] latches = blocking.get(group);
                        if (latches != null) {
                            latches[1].countDown();
                            try {
                                latches[0].await(10, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                    });
        }
    }

    /** Counts the owner's stop verbs and records graceful stops in the log. */
    static final class CountingSupplier implements AggregateSchedulerSupplier {
        final AggregateSchedulerSupplier delegate = AggregateSchedulers.perType("events", 2);
        final AtomicInteger gracefulStops = new AtomicInteger();
        final AtomicInteger forceStops = new AtomicInteger();
        private final List<String> log;

        CountingSupplier(List<String> log) {
            this.log = log;
        }

        @Override
        public Scheduler getOrInitialize(NamedAggregate namedAggregate) {
            return delegate.getOrInitialize(namedAggregate);
        }

        @Override
        public Mono<Void> stopGracefully() {
            return Mono.defer(() -> {
                gracefulStops.incrementAndGet();
                log.add("stop:supplier");
                return delegate.stopGracefully();
            });
        }

        @Override
        public void forceStop() {
            forceStops.incrementAndGet();
            delegate.forceStop();
        }

        boolean getOrInitializeFailsAfterStop() {
            try {
                delegate.getOrInitialize(NamedAggregate.of("x", "y"));
                return false;
            } catch (IllegalStateException expected) {
                return true;
            }
        }
    }

    /** A component whose start throws. */
    static final class FailingStart implements RuntimeComponent {
        @Override
        public String name() {
            return "failing";
        }

        @Override
        public Mono<Void> prepare(RuntimeContext context) {
            return Mono.empty();
        }

        @Override
        public void start() {
            throw new IllegalStateException("cannot start");
        }

        @Override
        public void quiesce() {}

        @Override
        public Mono<Void> stopGracefully() {
            return Mono.empty();
        }

        @Override
        public void forceStop() {}
    }
}
