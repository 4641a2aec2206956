package dev.lanes.dispatch;

import static dev.lanes.dispatch.DispatcherFixture.PROMPTLY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

import dev.lanes.dispatch.AggregateDispatcher.State;
import dev.lanes.dispatch.FailureIsolationTest.RecordingContext;
import dev.lanes.lifecycle.RuntimeContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

class DispatcherLifecycleTest {
    private final DispatcherFixture fixture = new DispatcherFixture("lifecycle", 2);

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void prepareSubscribesTheSourceButHandlesNothingUntilStart() {
        AtomicInteger handled = new AtomicInteger();
        AggregateDispatcher<String> dispatcher = fixture.track(fixture.builder(exchange -> {
                    handled.incrementAndGet();
                    return Mono.empty();
                })
                .build());

        dispatcher.prepare(RuntimeContext.standalone()).block(PROMPTLY);
        TestExchange early = TestExchange.of("o-1", 0);
        fixture.emit(early);

        assertThat(fixture.source.currentSubscriberCount()).isEqualTo(1);
        assertThat(dispatcher.state()).isEqualTo(State.PREPARED);
        assertThat(handled).hasValue(0);
        assertThat(early.settled).isNotDone();

        dispatcher.start();
        await().atMost(PROMPTLY).until(early::acknowledged);
    }

    @Test
    void prepareIsLazyUntilSubscribed() {
        AggregateDispatcher<String> dispatcher =
                fixture.track(fixture.builder(exchange -> Mono.empty()).build());
        Mono<Void> prepare = dispatcher.prepare(RuntimeContext.standalone());
        assertThat(fixture.source.currentSubscriberCount()).isZero();
        assertThat(dispatcher.state()).isEqualTo(State.NEW);
        prepare.block(PROMPTLY);
        assertThat(dispatcher.state()).isEqualTo(State.PREPARED);
    }

    @Test
    void gracefulStopDrainsEveryAdmittedExchangeInOrderWithoutCancellingHandlers() {
        Sinks.Empty<Void> release = Sinks.empty();
        List<String> handled = new CopyOnWriteArrayList<>();
        AtomicBoolean cancelled = new AtomicBoolean();
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> {
            Mono<Void> work = exchange.message().endsWith("#1")
                    ? release.asMono().doOnCancel(() -> cancelled.set(true))
                    : Mono.empty();
            return work.doOnSuccess(unused -> handled.add(exchange.message()));
        }));
        TestExchange first = TestExchange.of("o-1", 1);
        TestExchange second = TestExchange.of("o-1", 2);
        fixture.emit(first);
        fixture.emit(second);
        await().atMost(PROMPTLY).until(() -> dispatcher.stats().inFlight() == 1);

        StepVerifier.create(dispatcher.stopGracefully())
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(100))
                .then(release::tryEmitEmpty)
                .expectComplete()
                .verify(PROMPTLY);

        assertThat(handled).containsExactly("o-1#1", "o-1#2");
        assertThat(cancelled).isFalse();
        assertThat(first.acknowledged() && second.acknowledged()).isTrue();
        assertThat(dispatcher.state()).isEqualTo(State.STOPPED);
    }

    @Test
    void quiesceStopsTakingFromTheSourceAndLaterExchangesAreNotHandled() {
        AtomicInteger handled = new AtomicInteger();
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> {
            handled.incrementAndGet();
            return Mono.empty();
        }));

        dispatcher.quiesce();
        dispatcher.quiesce();

        await().atMost(PROMPTLY).until(() -> fixture.source.currentSubscriberCount() == 0);
        assertThat(fixture.source.tryEmitNext(TestExchange.of("late", 0))).isEqualTo(Sinks.EmitResult.FAIL_CANCELLED);
        StepVerifier.create(dispatcher.stopGracefully()).expectComplete().verify(PROMPTLY);
        assertThat(handled).hasValue(0);
    }

    @Test
    void exchangesDeliveredAfterQuiesceAreRejectedToTheirSource() {
        Sinks.Many<MessageExchange<String>> ignoringCancel =
                Sinks.many().unicast().onBackpressureBuffer();
        CountDownLatch cancelEntered = new CountDownLatch(1);
        CountDownLatch releaseCancel = new CountDownLatch(1);
        AggregateDispatcher<String> dispatcher = fixture.started(
                AggregateDispatcher.<String>builder("TestDispatcher", TestExchange.ORDER)
                        .source(ignoringCancel.asFlux().doOnCancel(() -> {
                            cancelEntered.countDown();
                            awaitQuietly(releaseCancel);
                        }))
                        .handler(exchange -> Mono.empty())
                        .schedulers(fixture.schedulers)
                        .build(),
                RuntimeContext.standalone());

        dispatcher.quiesce();
        awaitQuietly(cancelEntered);
        TestExchange late = TestExchange.of("late", 0);
        ignoringCancel.tryEmitNext(late);
        releaseCancel.countDown();

        // delivered on this thread: a worker's drain takes it and hands it back
        await().atMost(PROMPTLY).until(late::isSettled);
        assertThat(late.rejection())
                .isInstanceOfSatisfying(
                        ExchangeRejectedException.class,
                        rejected -> assertThat(rejected.reason()).isEqualTo(ExchangeRejectedException.Reason.STOPPING));
    }

    @Test
    void admissionClosedByTheRuntimeRejectsToTheSource() {
        RecordingContext context = new RecordingContext();
        fixture.started(fixture.builder(exchange -> Mono.empty()).build(), context);
        context.admissionClosed = true;

        TestExchange exchange = TestExchange.of("o-1", 0);
        fixture.emit(exchange);

        await().atMost(PROMPTLY).until(() -> exchange.settled.isDone());
        assertThat(exchange.rejection())
                .isInstanceOfSatisfying(
                        ExchangeRejectedException.class,
                        rejected -> assertThat(rejected.reason())
                                .isEqualTo(ExchangeRejectedException.Reason.ADMISSION_CLOSED));
    }

    @Test
    void everyAdmittedExchangeHoldsALeaseUntilItIsSettled() {
        RecordingContext context = new RecordingContext();
        Sinks.Empty<Void> release = Sinks.empty();
        fixture.started(fixture.builder(exchange -> release.asMono()).build(), context);
        List<TestExchange> sent = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            sent.add(TestExchange.of("o-1", i));
            fixture.emit(sent.get(i));
        }
        await().atMost(PROMPTLY).until(() -> context.open.get() == 5);
        release.tryEmitEmpty();
        // a lane closes each lease just after it acknowledges
        await().atMost(PROMPTLY)
                .until(() -> sent.stream().allMatch(TestExchange::acknowledged) && context.open.get() == 0);
    }

    @Nested
    class ForceStop {
        @Test
        void returnsPromptlyEvenWhenHandlerAndSourceCancelBlockAndRejectsEverythingAdmitted()
                throws InterruptedException {
            CountDownLatch neverReleased = new CountDownLatch(1);
            CountDownLatch handlerCancelEntered = new CountDownLatch(1);
            CountDownLatch sourceCancelEntered = new CountDownLatch(1);
            Sinks.Many<MessageExchange<String>> sink = Sinks.many().unicast().onBackpressureBuffer();
            Flux<MessageExchange<String>> blockingCancelSource = sink.asFlux().doOnCancel(() -> {
                sourceCancelEntered.countDown();
                awaitQuietly(neverReleased);
            });
            AggregateDispatcher<String> dispatcher = fixture.started(
                    AggregateDispatcher.<String>builder("TestDispatcher", TestExchange.ORDER)
                            .source(blockingCancelSource)
                            .schedulers(fixture.schedulers)
                            .handler(exchange -> Mono.<Void>never().doOnCancel(() -> {
                                handlerCancelEntered.countDown();
                                awaitQuietly(neverReleased);
                            }))
                            .build(),
                    RuntimeContext.standalone());
            TestExchange running = TestExchange.of("o-1", 0);
            TestExchange queued = TestExchange.of("o-1", 1);
            sink.tryEmitNext(running);
            sink.tryEmitNext(queued);
            await().atMost(PROMPTLY).until(() -> dispatcher.stats().inFlight() == 1);

            long started = System.nanoTime();
            dispatcher.forceStop();
            // run inline, the cancel hooks would hold the caller for 10 s
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));

            assertThat(dispatcher.state()).isEqualTo(State.STOPPED);
            assertThat(running.rejection()).hasMessageContaining("force-stopped while handling");
            assertThat(queued.rejection()).hasMessageContaining("force-stopped before handling");
            assertThat(List.of(running, queued)).allMatch(e -> e.settlements.get() == 1);
            assertThat(handlerCancelEntered.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(sourceCancelEntered.await(5, TimeUnit.SECONDS)).isTrue();
            StepVerifier.create(dispatcher.stopGracefully()).expectComplete().verify(PROMPTLY);
            DispatcherStats stats = dispatcher.stats();
            assertThat(stats.cancelled()).isEqualTo(1);
            assertThat(stats.rejected()).isEqualTo(1);
            assertThat(stats.queued()).isZero();
        }

        @Test
        void takesOverAGracefulStopThatWaitsOnAStuckHandler() {
            AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> Mono.never()));
            TestExchange stuck = TestExchange.of("o-1", 0);
            fixture.emit(stuck);
            await().atMost(PROMPTLY).until(() -> dispatcher.stats().inFlight() == 1);

            StepVerifier.create(dispatcher.stopGracefully())
                    .expectSubscription()
                    .expectNoEvent(Duration.ofMillis(50))
                    .then(dispatcher::forceStop)
                    .expectComplete()
                    .verify(PROMPTLY);
            assertThat(stuck.rejection()).isInstanceOf(ExchangeRejectedException.class);
        }

        @Test
        void isIdempotentAndSafeBeforePrepare() {
            AggregateDispatcher<String> dispatcher =
                    fixture.track(fixture.builder(exchange -> Mono.empty()).build());
            dispatcher.forceStop();
            dispatcher.forceStop();
            assertThat(dispatcher.state()).isEqualTo(State.STOPPED);
            assertThat(fixture.source.currentSubscriberCount()).isZero();
            StepVerifier.create(dispatcher.stopGracefully()).expectComplete().verify(PROMPTLY);
        }
    }

    @Nested
    class OneWay {
        @Test
        void aCallInTheWrongStateThrowsNamingTheDispatcherAndItsState() {
            AggregateDispatcher<String> dispatcher =
                    fixture.track(fixture.builder(exchange -> Mono.empty()).build());

            assertThatIllegalStateException()
                    .isThrownBy(dispatcher::start)
                    .withMessage("AggregateDispatcher[TestDispatcher/sales.order] cannot start in state NEW");
            dispatcher.prepare(RuntimeContext.standalone()).block(PROMPTLY);
            assertThatIllegalStateException()
                    .isThrownBy(() ->
                            dispatcher.prepare(RuntimeContext.standalone()).block(PROMPTLY))
                    .withMessage("AggregateDispatcher[TestDispatcher/sales.order] cannot prepare in state PREPARED");
            dispatcher.start();
            assertThatIllegalStateException()
                    .isThrownBy(dispatcher::start)
                    .withMessageContaining("cannot start in state RUNNING");
            dispatcher.stopGracefully().block(PROMPTLY);
            assertThatIllegalStateException()
                    .isThrownBy(dispatcher::start)
                    .withMessageContaining("cannot start in state STOPPED");
        }

        @Test
        void quiesceBeforePrepareStopsWithoutEverSubscribing() {
            AggregateDispatcher<String> dispatcher =
                    fixture.track(fixture.builder(exchange -> Mono.empty()).build());
            dispatcher.quiesce();
            assertThat(dispatcher.state()).isEqualTo(State.STOPPED);
            StepVerifier.create(dispatcher.stopGracefully()).expectComplete().verify(PROMPTLY);
            assertThatIllegalStateException()
                    .isThrownBy(() ->
                            dispatcher.prepare(RuntimeContext.standalone()).block(PROMPTLY));
            assertThat(fixture.source.currentSubscriberCount()).isZero();
        }

        @Test
        void stopGracefullyIsLazySharedAndIdle() {
            AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> Mono.empty()));
            Mono<Void> stop = dispatcher.stopGracefully();
            assertThat(dispatcher.stopGracefully()).isSameAs(stop);
            assertThat(dispatcher.state()).isEqualTo(State.RUNNING);
            StepVerifier.create(stop).expectComplete().verify(PROMPTLY);
            StepVerifier.create(stop).expectComplete().verify(PROMPTLY);
        }

        @Test
        void theDispatcherNeverStopsItsSchedulerSupplier() {
            AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> Mono.empty()));
            dispatcher.stopGracefully().block(PROMPTLY);
            assertThat(fixture.schedulers.getOrInitialize(TestExchange.ORDER).isDisposed())
                    .isFalse();
        }
    }

    static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
