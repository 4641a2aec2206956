package dev.lanes.dispatch;

import static dev.lanes.dispatch.DispatcherFixture.PROMPTLY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.NamedAggregate;
import dev.lanes.lifecycle.ActivityLease;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.test.logging.LogCapture;
import dev.lanes.test.logging.LogLine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** A failing message never stops the dispatcher: it is retried in its lane, then parked, and the lane goes on. */
class FailureIsolationTest {
    private static final RetryPolicy FAST_RETRIES =
            RetryPolicy.DEFAULT.withMaxRetries(2).withBackoff(Duration.ZERO, Duration.ZERO);

    private final DispatcherFixture fixture = new DispatcherFixture("failures", 2);

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void anExhaustedMessageIsParkedWithItsErrorAcknowledgedAndTheLaneMovesOnInOrder() {
        List<String> attempts = Collections.synchronizedList(new ArrayList<>());
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> {
                    attempts.add(exchange.message());
                    if (exchange.message().equals("o-1#poison")) {
                        throw new IllegalArgumentException("cannot handle " + exchange.message());
                    }
                    return Mono.empty();
                })
                .settings(LaneSettings.DEFAULT.withRetryPolicy(FAST_RETRIES)));

        TestExchange poison = new TestExchange("o-1", "o-1#poison");
        TestExchange next = new TestExchange("o-1", "o-1#next");
        fixture.emit(poison);
        fixture.emit(next);

        await().atMost(PROMPTLY).until(() -> poison.acknowledged() && next.acknowledged());
        assertThat(attempts).containsExactly("o-1#poison", "o-1#poison", "o-1#poison", "o-1#next");
        assertThat(fixture.parkingLot.entries()).singleElement().satisfies(parked -> {
            assertThat(parked.message()).isEqualTo("o-1#poison");
            assertThat(parked.attempts()).isEqualTo(3);
            assertThat(parked.dispatcher()).isEqualTo("TestDispatcher");
            assertThat(parked.aggregateId()).isEqualTo(poison.aggregateId());
            assertThat(parked.error()).isInstanceOf(IllegalArgumentException.class);
        });
        assertThat(dispatcher.state()).isEqualTo(AggregateDispatcher.State.RUNNING);
        DispatcherStats stats = dispatcher.stats();
        assertThat(stats.retried()).isEqualTo(2);
        assertThat(stats.parked()).isEqualTo(1);
        assertThat(stats.handled()).isEqualTo(1);
        assertParkingLogged("after 3 attempt(s): java.lang.IllegalArgumentException: cannot handle o-1#poison");
    }

    @Test
    void aRetriedMessageKeepsItsPlaceInTheLane() {
        AtomicInteger failuresLeft = new AtomicInteger(2);
        List<String> handled = new CopyOnWriteArrayList<>();
        fixture.started(fixture.builder(exchange -> {
                    if (exchange.message().endsWith("#0") && failuresLeft.getAndDecrement() > 0) {
                        return Mono.error(new IllegalStateException("transient"));
                    }
                    handled.add(exchange.message());
                    return Mono.empty();
                })
                .settings(LaneSettings.DEFAULT.withRetryPolicy(FAST_RETRIES)));

        List<TestExchange> sent = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            TestExchange exchange = TestExchange.of("o-1", i);
            sent.add(exchange);
            fixture.emit(exchange);
        }

        await().atMost(PROMPTLY).until(() -> sent.stream().allMatch(TestExchange::acknowledged));
        assertThat(handled).containsExactly("o-1#0", "o-1#1", "o-1#2", "o-1#3", "o-1#4");
        assertThat(fixture.parkingLot.entries()).isEmpty();
        assertThat(logs.lines()).as("retries that succeed log nothing").isEmpty();
    }

    @Test
    void aNonRetryableErrorIsParkedAtOnce() {
        AtomicInteger calls = new AtomicInteger();
        fixture.started(fixture.builder(exchange -> {
                    calls.incrementAndGet();
                    return Mono.error(new UnsupportedOperationException("never works"));
                })
                .settings(LaneSettings.DEFAULT.withRetryPolicy(
                        FAST_RETRIES.withRetryable(error -> !(error instanceof UnsupportedOperationException)))));

        TestExchange exchange = TestExchange.of("o-1", 0);
        fixture.emit(exchange);

        await().atMost(PROMPTLY).until(exchange::acknowledged);
        assertThat(calls).hasValue(1);
        assertThat(fixture.parkingLot.entries())
                .singleElement()
                .satisfies(p -> assertThat(p.attempts()).isEqualTo(1));
        assertParkingLogged("after 1 attempt(s): java.lang.UnsupportedOperationException: never works");
    }

    @Test
    void aHandlerReturningNullIsTreatedAsAFailureNotAFault() {
        fixture.started(
                fixture.builder(exchange -> null).settings(LaneSettings.DEFAULT.withRetryPolicy(RetryPolicy.NONE)));
        TestExchange exchange = TestExchange.of("o-1", 0);
        fixture.emit(exchange);
        await().atMost(PROMPTLY).until(exchange::acknowledged);
        assertThat(fixture.parkingLot.entries())
                .singleElement()
                .satisfies(p -> assertThat(p.error()).hasMessage("handler returned null"));
        assertParkingLogged("after 1 attempt(s): java.lang.NullPointerException: handler returned null");
    }

    @Test
    void retriesWaitForTheirBackoffInVirtualTime() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        AtomicInteger attempts = new AtomicInteger();
        AggregateDispatcher<String> dispatcher =
                fixture.track(AggregateDispatcher.<String>builder("TestDispatcher", TestExchange.ORDER)
                        .source(fixture.source.asFlux())
                        .schedulers(fixedScheduler(time))
                        .handler(exchange -> attempts.incrementAndGet() < 3
                                ? Mono.error(new IllegalStateException("try again"))
                                : Mono.empty())
                        .settings(LaneSettings.DEFAULT.withRetryPolicy(RetryPolicy.DEFAULT
                                .withBackoff(Duration.ofSeconds(1), Duration.ofSeconds(10))
                                .withJitter(0)))
                        .build());
        dispatcher.prepare(RuntimeContext.standalone()).block(PROMPTLY);
        dispatcher.start();

        TestExchange exchange = TestExchange.of("o-1", 0);
        fixture.emit(exchange);
        time.advanceTime();
        assertThat(attempts).hasValue(1);

        time.advanceTimeBy(Duration.ofMillis(999));
        assertThat(attempts).hasValue(1);
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(attempts).hasValue(2);
        time.advanceTimeBy(Duration.ofMillis(1999));
        assertThat(attempts).hasValue(2);
        assertThat(exchange.settled).isNotDone();
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(attempts).hasValue(3);
        assertThat(exchange.acknowledged()).isTrue();
    }

    @Test
    void aSchedulerThatRefusesWorkIsAFaultReportedToTheOwnerAndTheExchangeGoesBack() {
        RecordingContext context = new RecordingContext();
        AggregateDispatcher<String> dispatcher =
                fixture.started(fixture.builder(exchange -> Mono.empty()).build(), context);
        fixture.schedulers.forceStop();

        TestExchange exchange = TestExchange.of("o-1", 0);
        fixture.emit(exchange);

        await().atMost(PROMPTLY).until(() -> exchange.settled.isDone());
        assertThat(exchange.rejection())
                .isInstanceOfSatisfying(
                        ExchangeRejectedException.class,
                        rejected -> assertThat(rejected.reason()).isEqualTo(ExchangeRejectedException.Reason.FAULT));
        assertThat(context.failures)
                .singleElement()
                .satisfies(failure -> assertThat(failure).hasMessageContaining("scheduler refused work"));
        StepVerifier.create(dispatcher.stopGracefully())
                .expectErrorMessage(context.failures.get(0).getMessage())
                .verify(PROMPTLY);
        assertFaultLogged(context.failures.get(0));
    }

    @Test
    void aSchedulerThatThrowsSomethingElseThanARefusalIsAFaultTooAndNothingWaitsForIt() {
        RecordingContext context = new RecordingContext();
        Scheduler workers = Schedulers.newParallel("throwing-after-start", 1);
        try {
            AtomicInteger taken = new AtomicInteger();
            // a user's scheduler, not Reactor's (which turns whatever its executor throws into a refusal)
            Scheduler throwing = new Scheduler() {
                @Override
                public Disposable schedule(Runnable task) {
                    if (taken.getAndIncrement() > 0) {
                        throw new IllegalStateException("the pool is being resized");
                    }
                    return workers.schedule(task);
                }

                @Override
                public Worker createWorker() {
                    return workers.createWorker();
                }
            };
            AggregateDispatcher<String> dispatcher = fixture.started(
                    fixture.builder(exchange -> Mono.empty())
                            .schedulers(fixedScheduler(throwing))
                            .build(),
                    context);

            List<TestExchange> exchanges = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                TestExchange exchange = TestExchange.of("o-" + i, 0);
                exchanges.add(exchange);
                // emitted from this thread: each is queued for a drain the scheduler is asked to run
                fixture.emit(exchange);
            }

            await().atMost(PROMPTLY).until(() -> exchanges.stream().allMatch(e -> e.settled.isDone()));
            assertThat(exchanges)
                    .allSatisfy(exchange -> assertThat(exchange.rejection())
                            .isInstanceOfSatisfying(
                                    ExchangeRejectedException.class,
                                    rejected -> assertThat(rejected.reason())
                                            .isEqualTo(ExchangeRejectedException.Reason.FAULT)));
            assertThat(context.failures)
                    .first()
                    .satisfies(failure -> assertThat(failure)
                            .hasMessageContaining("scheduler refused work")
                            .hasRootCauseMessage("the pool is being resized"));
            StepVerifier.create(dispatcher.stopGracefully())
                    .expectErrorMessage(context.failures.get(0).getMessage())
                    .verify(PROMPTLY);
            assertFaultLogged(context.failures.get(0));
        } finally {
            workers.dispose();
        }
    }

    @Test
    void aParkingLotThatFailsIsAFaultAndTheExchangeGoesBackToItsSource() {
        RecordingContext context = new RecordingContext();
        fixture.started(
                fixture.builder(exchange -> Mono.error(new IllegalStateException("boom")))
                        .settings(LaneSettings.DEFAULT.withRetryPolicy(RetryPolicy.NONE))
                        .parkingLot(parked -> {
                            throw new IllegalStateException("parking lot unavailable");
                        })
                        .build(),
                context);

        TestExchange exchange = TestExchange.of("o-1", 0);
        fixture.emit(exchange);

        // the exchange goes back first, the fault is logged and reported after
        await().atMost(PROMPTLY).until(() -> exchange.settled.isDone() && !context.failures.isEmpty());
        assertThat(exchange.rejection()).hasRootCauseMessage("parking lot unavailable");
        assertThat(context.failures)
                .singleElement()
                .satisfies(f -> assertThat(f)
                        .hasMessage("parking lot unavailable")
                        .hasSuppressedException(new IllegalStateException("boom")));
        assertThat(assertFaultLogged(context.failures.get(0)).details())
                .contains("Suppressed: java.lang.IllegalStateException: boom");
    }

    @Test
    void aFailingSourceIsAFaultAndTheDispatcherStopsTaking() {
        Sinks.Many<MessageExchange<String>> failing = Sinks.many().unicast().onBackpressureBuffer();
        RecordingContext context = new RecordingContext();
        AggregateDispatcher<String> dispatcher = fixture.started(
                AggregateDispatcher.<String>builder("TestDispatcher", TestExchange.ORDER)
                        .source(failing.asFlux())
                        .handler(exchange -> Mono.empty())
                        .schedulers(fixture.schedulers)
                        .build(),
                context);

        failing.tryEmitError(new IllegalStateException("broker gone"));

        await().atMost(PROMPTLY).until(() -> !context.failures.isEmpty());
        assertThat(context.failures.get(0))
                .hasMessageContaining("source failed")
                .hasRootCauseMessage("broker gone");
        StepVerifier.create(dispatcher.stopGracefully()).expectError().verify(PROMPTLY);
        assertThat(dispatcher.state()).isEqualTo(AggregateDispatcher.State.STOPPED);
        assertThat(assertFaultLogged(context.failures.get(0)).details())
                .contains("Caused by: java.lang.IllegalStateException: broker gone");
    }

    /** The one warning of a parked message: which aggregate, from which dispatcher, after how many attempts, why. */
    private void assertParkingLogged(String attemptsAndError) {
        assertThat(logs.lines(Level.WARN))
                .singleElement()
                .satisfies(line -> assertThat(line.message())
                        .isEqualTo("Parked a message for sales.order/o-1 from TestDispatcher " + attemptsAndError));
    }

    /** The dispatcher's fault is logged once, as an error naming the dispatcher, with the fault's stack trace. */
    private LogLine assertFaultLogged(Throwable fault) {
        assertThat(logs.lines(Level.ERROR)).singleElement().satisfies(line -> {
            assertThat(line.message())
                    .isEqualTo("AggregateDispatcher[TestDispatcher/sales.order] infrastructure fault");
            assertThat(line.details()).startsWith(fault.toString());
        });
        return logs.lines(Level.ERROR).get(0);
    }

    static AggregateSchedulerSupplier fixedScheduler(Scheduler scheduler) {
        return new AggregateSchedulerSupplier() {
            @Override
            public Scheduler getOrInitialize(NamedAggregate namedAggregate) {
                return scheduler;
            }

            @Override
            public void forceStop() {}

            @Override
            public Mono<Void> stopGracefully() {
                return Mono.empty();
            }
        };
    }

    static final class RecordingContext implements RuntimeContext {
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        volatile boolean admissionClosed;
        final AtomicInteger open = new AtomicInteger();

        @Override
        public @Nullable ActivityLease tryAcquire() {
            if (admissionClosed) {
                return null;
            }
            open.incrementAndGet();
            java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
            return () -> {
                if (closed.compareAndSet(false, true)) {
                    open.decrementAndGet();
                }
            };
        }

        @Override
        public void reportFailure(Throwable failure) {
            failures.add(failure);
        }
    }
}
