package dev.lanes.dispatch;

import static dev.lanes.dispatch.DispatcherFixture.PROMPTLY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.dispatch.ExchangeRejectedException.Reason;
import dev.lanes.dispatch.FailureIsolationTest.RecordingContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * What a source emits inside the dispatcher's own request, on the requesting thread, is staged and reaches each lane as
 * one chain ({@link LaneWriter}); what it emits from elsewhere is queued and staged by a drain on a worker. Both paths
 * keep per-id order, count staged exchanges as admitted, and lose nothing to a stop in the middle of a burst.
 */
class StagedPublicationTest {
    private final DispatcherFixture fixture = new DispatcherFixture("staged", 2);
    private final ExecutorService starter = Executors.newSingleThreadExecutor();

    @AfterEach
    void close() {
        fixture.close();
        starter.shutdownNow();
    }

    @ParameterizedTest
    @EnumSource(LaneStrategy.class)
    void aSynchronousSourceIsHandledCompletelyAndInOrderPerId(LaneStrategy strategy) {
        int messages = 50_000;
        OrderCheck order = new OrderCheck();
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(order::handle)
                .source(Flux.range(0, messages).map(i -> TestExchange.of("id-" + (i % 100), i / 100)))
                .settings(LaneSettings.DEFAULT.withStrategy(strategy).withParallelism(16)));

        await().atMost(Duration.ofSeconds(30)).until(() -> dispatcher.stats().handled() == messages);
        assertThat(order.violations).hasValue(0);
        await().atMost(PROMPTLY).until(() -> dispatcher.stats().queued() == 0);
    }

    @Test
    void aLongBurstReachesItsLanesBeforeItEnds() {
        int messages = 4 * LaneWriter.PUBLISH_EVERY;
        CountDownLatch firstHandled = new CountDownLatch(1);
        AtomicInteger waitedInVain = new AtomicInteger();
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> {
                    firstHandled.countDown();
                    return Mono.empty();
                })
                .source(Flux.range(0, messages).map(i -> {
                    if (i == 3 * LaneWriter.PUBLISH_EVERY && !opened(firstHandled)) {
                        waitedInVain.incrementAndGet(); // the burst's first exchanges were still held back
                    }
                    return TestExchange.of("id-" + (i % 10), i);
                })));

        await().atMost(Duration.ofSeconds(30)).until(() -> dispatcher.stats().handled() == messages);
        assertThat(waitedInVain).hasValue(0);
    }

    @Test
    void theCallerOfStartRunsOneBurstOfASynchronousSourceAndTheWorkersRunTheRest() {
        // a budget of four publications: the first burst, on the caller, waits at its end until workers have handled
        // half of it, so credits came back (and a request came due) while the caller was still inside its request
        int budget = 4 * LaneWriter.PUBLISH_EVERY;
        int messages = 10 * budget;
        Thread caller = Thread.currentThread();
        AtomicInteger emittedOnCaller = new AtomicInteger();
        AtomicInteger handled = new AtomicInteger();
        AtomicInteger waitedInVain = new AtomicInteger();
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> {
                    handled.incrementAndGet();
                    return Mono.empty();
                })
                .source(Flux.range(0, messages).map(i -> {
                    if (Thread.currentThread() == caller) {
                        emittedOnCaller.incrementAndGet();
                    }
                    if (i == budget - 1) {
                        waitedInVain.addAndGet(untilAtLeast(handled, budget / 2) ? 0 : 1);
                    }
                    return TestExchange.of("id-" + (i % 10), i);
                }))
                .settings(LaneSettings.DEFAULT.withBounds(budget, budget)));

        assertThat(emittedOnCaller).as("emitted inside start()").hasValue(budget);
        assertThat(waitedInVain).hasValue(0);
        await().atMost(Duration.ofSeconds(30)).until(() -> dispatcher.stats().handled() == messages);
        assertThat(emittedOnCaller).hasValue(budget);
    }

    @ParameterizedTest
    @EnumSource(LaneStrategy.class)
    void exchangesEmittedElsewhereDuringABurstKeepTheirOrderAndNoneIsLost(LaneStrategy strategy) throws Exception {
        // a small budget: the dispatcher requests often, from its workers, and each request drains what the emitters
        // buffered meanwhile (a burst); emitters that find the sink free deliver on their own threads at the same time
        int emitters = 2;
        int perEmitter = 40_000;
        OrderCheck order = new OrderCheck();
        Sinks.Many<MessageExchange<String>> sink = Sinks.many().unicast().onBackpressureBuffer();
        AtomicInteger calls = new AtomicInteger();
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> {
                    Mono<Void> checked = order.handle(exchange);
                    return calls.incrementAndGet() % 7 == 0 ? checked.publishOn(Schedulers.parallel()) : checked;
                })
                .source(sink.asFlux())
                .settings(LaneSettings.DEFAULT
                        .withStrategy(strategy)
                        .withParallelism(32)
                        .withBounds(64, 256)));

        ExecutorService emitting = Executors.newFixedThreadPool(emitters);
        try {
            List<CompletableFuture<Void>> done = new CopyOnWriteArrayList<>();
            for (int e = 0; e < emitters; e++) {
                int emitter = e;
                done.add(CompletableFuture.runAsync(
                        () -> {
                            for (int i = 0; i < perEmitter; i++) {
                                TestExchange exchange = TestExchange.of("e" + emitter + "-" + (i % 50), i / 50);
                                sink.emitNext(exchange, Sinks.EmitFailureHandler.busyLooping(Duration.ofSeconds(10)));
                            }
                        },
                        emitting));
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);
        } finally {
            emitting.shutdownNow();
        }

        await().atMost(Duration.ofMinutes(1)).until(() -> dispatcher.stats().handled() == (long) emitters * perEmitter);
        assertThat(order.violations).hasValue(0);
        assertThat(dispatcher.stats().rejected()).isZero();
    }

    @Test
    void aRejectingLaneCountsWhatIsStagedForItTowardsItsBound() {
        List<TestExchange> hot = new CopyOnWriteArrayList<>();
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> Mono.never())
                .source(Flux.range(0, 10).map(i -> {
                    TestExchange exchange = TestExchange.of("hot", i);
                    hot.add(exchange);
                    return exchange;
                }))
                .settings(LaneSettings.DEFAULT
                        .withStrategy(LaneStrategy.KEYED)
                        .withBounds(4, 100)
                        .withOverflow(LaneSettings.Overflow.REJECT)));

        await().atMost(PROMPTLY)
                .until(() -> hot.size() == 10 && dispatcher.stats().rejected() == 6);
        assertThat(hot.subList(0, 4)).noneMatch(e -> e.settled.isDone());
        assertThat(hot.subList(4, 10))
                .allSatisfy(e -> assertThat(e.rejection())
                        .isInstanceOfSatisfying(
                                ExchangeRejectedException.class,
                                rejected -> assertThat(rejected.reason()).isEqualTo(Reason.LANE_FULL)));
        assertThat(dispatcher.stats().queued()).isEqualTo(4);
    }

    /**
     * A synchronous source that pauses in the middle of a burst, on the thread that started the dispatcher, until told to
     * go on: at half a batch nothing is staged yet and half a batch is gathered; at a batch and a half, {@link
     * LaneWriter#BATCH} exchanges are staged and half a batch more is gathered.
     */
    @Nested
    class AStopInTheMiddleOfABurst {
        private static final int NOTHING_STAGED = LaneWriter.BATCH / 2;
        private static final int ONE_BATCH_STAGED = LaneWriter.BATCH + LaneWriter.BATCH / 2;

        private final CountDownLatch reached = new CountDownLatch(1);
        private final CountDownLatch resume = new CountDownLatch(1);
        private final List<TestExchange> emitted = new CopyOnWriteArrayList<>();
        private final AtomicInteger handlerCalls = new AtomicInteger();
        private final RecordingContext context = new RecordingContext();

        private AggregateDispatcher<String> preparedOnASourcePausingAt(int pause) {
            Flux<MessageExchange<String>> source = Flux.range(0, 4 * LaneWriter.BATCH)
                    .map(i -> {
                        if (i == pause) {
                            reached.countDown();
                            opened(resume);
                        }
                        TestExchange exchange = TestExchange.of("id-" + (i % 5), i);
                        emitted.add(exchange);
                        return exchange;
                    });
            AggregateDispatcher<String> dispatcher = fixture.track(fixture.builder(exchange -> {
                        handlerCalls.incrementAndGet();
                        return Mono.empty();
                    })
                    .source(source)
                    .build());
            dispatcher.prepare(context).block(PROMPTLY);
            return dispatcher;
        }

        /** Starts the dispatcher on another thread, whose first request runs the source until it pauses. */
        private void startAndWaitForThePause(AggregateDispatcher<String> dispatcher) {
            starter.execute(dispatcher::start);
            assertThat(opened(reached)).as("the source reached the pause").isTrue();
        }

        @ParameterizedTest(name = "paused at {0}")
        @ValueSource(ints = {NOTHING_STAGED, ONE_BATCH_STAGED})
        void aForceStopRejectsWhatWasStagedAndRefusesWhatComesAfter(int pause) {
            AggregateDispatcher<String> dispatcher = preparedOnASourcePausingAt(pause);
            startAndWaitForThePause(dispatcher);

            dispatcher.forceStop(); // walks the lanes: the staged exchanges are not in them yet
            resume.countDown();

            await().atMost(PROMPTLY).until(() -> emitted.stream().allMatch(e -> e.settled.isDone()));
            int staged = pause / LaneWriter.BATCH * LaneWriter.BATCH;
            assertThat(emitted).hasSizeGreaterThanOrEqualTo(pause).allMatch(e -> e.settlements.get() == 1);
            assertThat(handlerCalls).as("handlers called after the stop").hasValue(0);
            assertThat(emitted.subList(0, staged)).allSatisfy(e -> assertRejected(e, Reason.FORCED));
            assertThat(emitted.subList(staged, emitted.size())).allSatisfy(e -> assertRejected(e, Reason.STOPPING));
            assertThat(context.open).as("leases still open").hasValue(0);
            StepVerifier.create(dispatcher.stopGracefully()).expectComplete().verify(PROMPTLY);
        }

        @ParameterizedTest(name = "paused at {0}")
        @ValueSource(ints = {NOTHING_STAGED, ONE_BATCH_STAGED})
        void aGracefulStopWaitsForWhatWasDeliveredBeforeItAndRefusesWhatComesAfter(int pause) {
            AggregateDispatcher<String> dispatcher = preparedOnASourcePausingAt(pause);
            startAndWaitForThePause(dispatcher);
            AtomicInteger unsettledAtTheEnd = new AtomicInteger(-1);

            Mono<Void> stopped = dispatcher
                    .stopGracefully()
                    .doOnSuccess(done -> unsettledAtTheEnd.set((int)
                            emitted.stream().filter(e -> !e.settled.isDone()).count()))
                    .cache();
            stopped.subscribe(null, error -> {});
            StepVerifier.create(stopped)
                    .expectSubscription()
                    .as("gathered and staged exchanges count as admitted: the stop waits for them")
                    .expectNoEvent(Duration.ofMillis(200))
                    .thenCancel()
                    .verify(PROMPTLY);
            resume.countDown();

            StepVerifier.create(stopped).expectComplete().verify(PROMPTLY);
            assertThat(unsettledAtTheEnd)
                    .as("exchanges unsettled when the stop completed")
                    .hasValue(0);
            int staged = pause / LaneWriter.BATCH * LaneWriter.BATCH;
            assertThat(emitted).hasSizeGreaterThanOrEqualTo(pause).allMatch(e -> e.settlements.get() == 1);
            assertThat(emitted.subList(0, staged)).allMatch(TestExchange::acknowledged);
            assertThat(emitted.subList(staged, emitted.size())).allSatisfy(e -> assertRejected(e, Reason.STOPPING));
            assertThat(handlerCalls).hasValue(staged);
            assertThat(context.open).as("leases still open").hasValue(0);
            assertThat(dispatcher.stats().queued()).isZero();
        }

        private void assertRejected(TestExchange exchange, Reason reason) {
            assertThat(exchange.rejection())
                    .as(exchange.message())
                    .isInstanceOfSatisfying(
                            ExchangeRejectedException.class,
                            rejected -> assertThat(rejected.reason()).isEqualTo(reason));
        }
    }

    /** A bounded wait inside a source: true if {@code count} reached {@code at} in time. */
    private static boolean untilAtLeast(AtomicInteger count, int at) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (count.get() < at) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.onSpinWait();
        }
        return true;
    }

    /** A bounded wait inside a source or handler: true if the latch opened in time. */
    private static boolean opened(CountDownLatch latch) {
        try {
            return latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A handler that checks each id's sequence numbers (the message is {@code "<id>#<sequence>"}) arrive in order. */
    private static final class OrderCheck {
        final AtomicInteger violations = new AtomicInteger();
        private final ConcurrentHashMap<String, AtomicLong> lastSeen = new ConcurrentHashMap<>();

        Mono<Void> handle(MessageExchange<String> exchange) {
            String message = exchange.message();
            long sequence = Long.parseLong(message.substring(message.indexOf('#') + 1));
            long previous = lastSeen.computeIfAbsent(exchange.aggregateId().id(), id -> new AtomicLong(-1))
                    .getAndSet(sequence);
            if (previous != sequence - 1) {
                violations.incrementAndGet();
            }
            return Mono.empty();
        }
    }
}
