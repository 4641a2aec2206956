package dev.lanes.dispatch;

import static dev.lanes.dispatch.DispatcherFixture.PROMPTLY;
import static dev.lanes.dispatch.FailureIsolationTest.fixedScheduler;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.test.logging.LogCapture;
import dev.lanes.test.logging.LogLine;
import dev.lanes.test.time.CountingScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import org.slf4j.event.Level;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Handler timeouts: the warning, the timeout as a failure, the freed lane, the stop, the race with a late end. */
class HandlerTimeoutTest {
    private static final Duration WARNING = Duration.ofSeconds(10);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** The sweep period of {@code (10 s, 30 s)}: a tenth of the warning, at most one second. */
    private static final Duration PERIOD = Duration.ofSeconds(1);
    /** A warning or timeout comes at its threshold or up to two sweep periods later. */
    private static final Duration SLACK = PERIOD.multipliedBy(2);

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    private final DispatcherFixture fixture = new DispatcherFixture("timeouts", 2);
    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();

    @AfterEach
    void close() {
        fixture.close();
        time.dispose();
    }

    private AggregateDispatcher<String> startedOnVirtualTime(ExchangeHandler<String> handler, LaneSettings settings) {
        return fixture.started(fixture.builder(handler)
                .schedulers(fixedScheduler(time))
                .cleanup(Schedulers.immediate())
                .settings(settings));
    }

    private static LaneSettings keyed(RetryPolicy retries) {
        return LaneSettings.DEFAULT
                .withStrategy(LaneStrategy.KEYED)
                .withRetryPolicy(retries)
                .withHandlerTimeout(WARNING, TIMEOUT);
    }

    private List<LogLine> warnings(String containing) {
        return logs.lines(Level.WARN).stream()
                .filter(line -> line.message().contains(containing))
                .toList();
    }

    @Test
    void aHungHandlerIsWarnedAboutOnceThenTimedOutRetriedAndParkedWithTheTimeoutAsItsReason() {
        AtomicInteger attempts = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        RetryPolicy oneRetry = RetryPolicy.DEFAULT
                .withMaxRetries(1)
                .withBackoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
                .withJitter(0);
        AggregateDispatcher<String> dispatcher = startedOnVirtualTime(
                exchange -> {
                    attempts.incrementAndGet();
                    return Mono.<Void>never().doOnCancel(cancelled::incrementAndGet);
                },
                keyed(oneRetry));
        TestExchange exchange = TestExchange.of("o-1", 0);
        fixture.emit(exchange);
        time.advanceTime();
        assertThat(attempts).hasValue(1);

        time.advanceTimeBy(WARNING.minusMillis(1));
        assertThat(warnings("has run for more than")).isEmpty();
        time.advanceTimeBy(SLACK.plusMillis(1));
        assertThat(warnings("has run for more than"))
                .singleElement()
                .satisfies(line -> assertThat(line.message())
                        .startsWith(
                                "AggregateDispatcher[TestDispatcher/sales.order] handler for sales.order/o-1 has run"
                                        + " for more than PT10S (attempt 1, handling o-1#0); it times out at PT30S"));

        time.advanceTimeBy(TIMEOUT.minus(WARNING).minus(SLACK).minusMillis(2)); // just before the timeout
        assertThat(cancelled).hasValue(0);
        assertThat(exchange.settled).isNotDone();
        assertThat(warnings("has run for more than")).hasSize(1); // once per attempt, however many sweeps saw it

        time.advanceTimeBy(SLACK.plusMillis(2)); // the timeout: cancelled, and retried after its backoff
        assertThat(cancelled).hasValue(1);
        assertThat(dispatcher.stats().retried()).isEqualTo(1);
        time.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(attempts).hasValue(2);
        assertThat(exchange.settled).isNotDone();

        time.advanceTimeBy(TIMEOUT.plus(SLACK)); // the retry times out too: retries spent, parked
        assertThat(cancelled).hasValue(2);
        assertThat(exchange.acknowledged()).isTrue();
        assertThat(exchange.settlements).hasValue(1);
        assertThat(fixture.parkingLot.entries()).singleElement().satisfies(parked -> {
            assertThat(parked.attempts()).isEqualTo(2);
            assertThat(parked.error())
                    .isInstanceOf(HandlerTimeoutException.class)
                    .hasMessage("TestDispatcher handler for sales.order/o-1 did not end within its timeout of PT30S"
                            + " (attempt 2); it was cancelled");
        });
        assertThat(warnings("has run for more than")).hasSize(2); // one per attempt
        assertThat(warnings("Parked a message"))
                .singleElement()
                .satisfies(line -> assertThat(line.message())
                        .contains("after 2 attempt(s): dev.lanes.dispatch.HandlerTimeoutException: TestDispatcher"
                                + " handler for sales.order/o-1 did not end within its timeout of PT30S"));
        DispatcherStats stats = dispatcher.stats();
        assertThat(stats.retried()).isEqualTo(1);
        assertThat(stats.parked()).isEqualTo(1);
        assertThat(stats.handled()).isZero();
        assertThat(stats.queued()).isZero();
    }

    @Test
    void otherLanesFlowWhileOneHangsAndItsNextMessageRunsOnceItTimedOut() {
        List<String> handled = new ArrayList<>();
        startedOnVirtualTime(
                exchange -> {
                    if (exchange.message().equals("stuck#0")) {
                        return Mono.never();
                    }
                    handled.add(exchange.message()); // the virtual-time worker is the test's thread
                    return Mono.delay(Duration.ofMillis(10), time).then(); // asynchronous, and timed
                },
                keyed(RetryPolicy.NONE));
        TestExchange stuck = TestExchange.of("stuck", 0);
        TestExchange stuckNext = TestExchange.of("stuck", 1);
        fixture.emit(stuck);
        fixture.emit(stuckNext);
        List<TestExchange> others = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            TestExchange other = TestExchange.of("o-" + i, i);
            others.add(other);
            fixture.emit(other);
        }
        time.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(others).allSatisfy(other -> assertThat(other.acknowledged()).isTrue());
        assertThat(stuck.settled).isNotDone();
        assertThat(stuckNext.settled).isNotDone();
        assertThat(handled).doesNotContain("stuck#1");

        time.advanceTimeBy(TIMEOUT.plus(SLACK));
        assertThat(stuck.acknowledged()).isTrue(); // parked with the timeout
        assertThat(fixture.parkingLot.entries())
                .singleElement()
                .satisfies(parked -> assertThat(parked.error()).isInstanceOf(HandlerTimeoutException.class));
        assertThat(stuckNext.acknowledged()).isTrue();
        assertThat(handled).containsOnlyOnce("stuck#1");
        assertThat(warnings("handler for sales.order/stuck has run for more than"))
                .hasSize(1);
        assertThat(warnings("Parked a message for sales.order/stuck")).hasSize(1);
        assertThat(warnings("o-")).as("only the stuck lane was warned about").isEmpty();
    }

    @Test
    void aGracefulStopEndsOneTimeoutAfterAHungHandlerAndHandsItsExchangeBackInsteadOfRetrying() {
        AtomicInteger attempts = new AtomicInteger();
        AggregateDispatcher<String> dispatcher = startedOnVirtualTime(
                exchange -> {
                    attempts.incrementAndGet();
                    return Mono.never();
                },
                keyed(RetryPolicy.DEFAULT)); // would retry 3 times while running
        TestExchange hung = TestExchange.of("o-1", 0);
        fixture.emit(hung);
        time.advanceTime();
        AtomicBoolean stopped = new AtomicBoolean();
        dispatcher.stopGracefully().subscribe(null, error -> {}, () -> stopped.set(true));

        time.advanceTimeBy(TIMEOUT.minusMillis(1));
        assertThat(stopped).isFalse();
        time.advanceTimeBy(SLACK.plusMillis(1));
        assertThat(stopped).isTrue();
        assertThat(attempts).hasValue(1);
        assertThat(hung.rejection()).isInstanceOfSatisfying(ExchangeRejectedException.class, rejected -> {
            assertThat(rejected.reason()).isEqualTo(ExchangeRejectedException.Reason.STOPPING);
            assertThat(rejected).hasMessageContaining("gave up on sales.order/o-1");
            assertThat(rejected.getCause()).isInstanceOf(HandlerTimeoutException.class);
        });
        assertThat(dispatcher.stats().cancelled()).isEqualTo(1);
        assertThat(dispatcher.state()).isEqualTo(AggregateDispatcher.State.STOPPED);
        assertThat(warnings("has run for more than")).hasSize(1);
        assertThat(warnings("did not end within its timeout")).hasSize(1);
    }

    @Test
    void aGracefulStopOnTheRealSchedulerDoesNotWaitForAHungHandlerPastItsTimeout() {
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> Mono.never())
                .settings(LaneSettings.DEFAULT
                        .withStrategy(LaneStrategy.KEYED)
                        .withHandlerTimeout(Duration.ofMillis(50), Duration.ofMillis(200))));
        TestExchange hung = TestExchange.of("o-1", 0);
        fixture.emit(hung);
        await().atMost(PROMPTLY).until(() -> dispatcher.stats().inFlight() == 1);

        AtomicBoolean stopped = new AtomicBoolean();
        dispatcher.stopGracefully().subscribe(null, error -> {}, () -> stopped.set(true));

        await().atMost(PROMPTLY).untilTrue(stopped);
        assertThat(hung.rejection()).hasCauseInstanceOf(HandlerTimeoutException.class);
        assertThat(warnings("has run for more than PT0.05S")).hasSize(1);
        assertThat(warnings("did not end within its timeout of PT0.2S")).hasSize(1);
    }

    /**
     * The handler ends on the sweep's own thread after the sweep picked its attempt and before it decided: the exchange
     * reads its id while armed (the sweep's warning reads it, warning and timeout being due in the same sweep) and ends
     * its handler then. The compare-and-set must let the handler's end win and the timeout do nothing: without it the
     * handled exchange would also be parked (and its lane continued twice).
     */
    @Test
    void aHandlerEndingAsTheTimeoutFiresIsSettledExactlyOnce() {
        AtomicInteger attempts = new AtomicInteger();
        Sinks.Empty<Void> firstAttempt = Sinks.empty();
        AggregateDispatcher<String> dispatcher = startedOnVirtualTime(
                exchange -> attempts.incrementAndGet() == 1 ? firstAttempt.asMono() : Mono.empty(),
                LaneSettings.DEFAULT
                        .withStrategy(LaneStrategy.KEYED)
                        .withRetryPolicy(RetryPolicy.NONE)
                        .withHandlerTimeout(TIMEOUT, TIMEOUT));
        EndsOnTheSweep racing = new EndsOnTheSweep("o-1", () -> firstAttempt.tryEmitEmpty());
        fixture.emit(racing);
        time.advanceTime();
        assertThat(attempts).hasValue(1);

        racing.arm();
        time.advanceTimeBy(TIMEOUT.plus(SLACK));

        assertThat(racing.fired).isTrue(); // the premise: the handler ended inside the sweep
        assertThat(racing.settlements).hasValue(1);
        assertThat(racing.rejection.get()).isNull();
        assertThat(fixture.parkingLot.entries()).isEmpty();
        assertThat(warnings("did not end within")).isEmpty();
        DispatcherStats stats = dispatcher.stats();
        assertThat(stats.handled()).isEqualTo(1);
        assertThat(stats.retried()).isZero();
        assertThat(stats.parked()).isZero();

        TestExchange next = TestExchange.of("o-1", 1); // the lane goes on, once
        fixture.emit(next);
        time.advanceTime();
        assertThat(next.acknowledged()).isTrue();
        assertThat(attempts).hasValue(2);
        assertThat(dispatcher.stats().handled()).isEqualTo(2);
    }

    @Test
    void anEndTheHandlerSignalsAfterItsTimeoutIsIgnored() {
        AtomicReference<@Nullable Subscriber<? super Void>> deaf = new AtomicReference<>();
        AggregateDispatcher<String> dispatcher = startedOnVirtualTime(
                exchange -> Mono.fromDirect(
                        subscriber -> { // ignores cancellation, ends when told
                            subscriber.onSubscribe(new Subscription() {
                                @Override
                                public void request(long n) {}

                                @Override
                                public void cancel() {}
                            });
                            deaf.set(subscriber);
                        }),
                keyed(RetryPolicy.NONE));
        TestExchange exchange = TestExchange.of("o-1", 0);
        fixture.emit(exchange);
        time.advanceTimeBy(TIMEOUT.plus(SLACK));
        assertThat(exchange.acknowledged()).isTrue();
        assertThat(fixture.parkingLot.entries()).hasSize(1);

        Subscriber<? super Void> late = deaf.get();
        assertThat(late).isNotNull();
        late.onComplete();
        time.advanceTime();

        assertThat(exchange.settlements).hasValue(1);
        DispatcherStats stats = dispatcher.stats();
        assertThat(stats.handled()).isZero();
        assertThat(stats.parked()).isEqualTo(1);
        assertThat(stats.queued()).isZero();
        assertThat(warnings("Parked a message for sales.order/o-1")).hasSize(1);
        assertThat(warnings("did not end within its timeout")).hasSize(2); // the timeout, and the parking's reason
    }

    @Test
    void aHandlerMaySayHowItsTimedOutAttemptEndsAndAnAnswerThatHangsTooFailsWithTheTimeout() {
        AtomicReference<Mono<Void>> answer =
                new AtomicReference<>(Mono.delay(Duration.ofSeconds(1), time).then());
        List<Integer> answeredAttempts = new ArrayList<>();
        ExchangeHandler<String> handler = new ExchangeHandler<>() {
            @Override
            public Mono<Void> handle(MessageExchange<String> exchange) {
                return Mono.never();
            }

            @Override
            public Mono<Void> timedOut(MessageExchange<String> exchange, HandlerTimeoutException timeout) {
                answeredAttempts.add(timeout.attempt());
                return answer.get();
            }
        };
        AggregateDispatcher<String> dispatcher = startedOnVirtualTime(handler, keyed(RetryPolicy.NONE));
        TestExchange answered = TestExchange.of("o-1", 0);
        fixture.emit(answered);
        time.advanceTimeBy(TIMEOUT.plus(SLACK).plusSeconds(1));
        assertThat(answered.acknowledged()).isTrue();
        assertThat(dispatcher.stats().handled()).isEqualTo(1); // the answer completed: handled, not parked
        assertThat(fixture.parkingLot.entries()).isEmpty();

        answer.set(Mono.never());
        TestExchange unanswered = TestExchange.of("o-2", 0);
        fixture.emit(unanswered);
        time.advanceTimeBy(TIMEOUT.plus(SLACK));
        assertThat(unanswered.settled).isNotDone(); // waiting for the answer, which is timed in turn
        time.advanceTimeBy(TIMEOUT.plus(SLACK));
        assertThat(unanswered.acknowledged()).isTrue();
        assertThat(fixture.parkingLot.entries())
                .singleElement()
                .satisfies(parked -> assertThat(parked.error()).isInstanceOf(HandlerTimeoutException.class));
        assertThat(answeredAttempts).containsExactly(1, 1); // asked once per timed-out attempt, not for its answer
        // the attempt's timeout, its answer's, and the parking naming it
        assertThat(warnings("handler for sales.order/o-2 did not end within")).hasSize(3);
        assertThat(warnings("Parked a message for sales.order/o-2")).hasSize(1);
    }

    @Test
    void handlersThatEndAtOnceScheduleNoTimerAndTheSweepEndsWithTheDispatcher() {
        CountingScheduler counting = new CountingScheduler(time);
        AtomicBoolean async = new AtomicBoolean();
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange ->
                        async.get() ? Mono.delay(Duration.ofMillis(1), time).then() : Mono.empty())
                .schedulers(fixedScheduler(counting))
                .settings(LaneSettings.DEFAULT.withHandlerTimeout(WARNING, TIMEOUT)));
        for (int i = 0; i < 100; i++) {
            fixture.emit(TestExchange.of("o-" + i, i));
        }
        time.advanceTimeBy(TIMEOUT.multipliedBy(2));
        assertThat(dispatcher.stats().handled()).isEqualTo(100);
        assertThat(counting.scheduled()).isZero();

        async.set(true);
        fixture.emit(TestExchange.of("o-1", 100));
        time.advanceTimeBy(Duration.ofSeconds(5));
        assertThat(dispatcher.stats().handled()).isEqualTo(101);
        int sweeps = counting.scheduled();
        assertThat(sweeps).isGreaterThanOrEqualTo(5); // one per second since the first asynchronous handler

        dispatcher.stopGracefully().block(PROMPTLY);
        int afterStop = counting.scheduled();
        time.advanceTimeBy(Duration.ofMinutes(1));
        assertThat(counting.scheduled()).isEqualTo(afterStop);
    }

    @Test
    void withoutATimeoutAHungHandlerHoldsItsLane() {
        startedOnVirtualTime(exchange -> Mono.never(), keyed(RetryPolicy.NONE).withoutHandlerTimeout());
        TestExchange exchange = TestExchange.of("o-1", 0);
        fixture.emit(exchange);
        time.advanceTimeBy(Duration.ofHours(1));
        assertThat(exchange.settled).isNotDone();
        assertThat(logs.lines(Level.WARN)).isEmpty();
    }

    @Nested
    class Settings {
        @Test
        void warningAndTimeoutMustBePositiveAndInOrder() {
            assertThatThrownBy(() -> new HandlerTimeout(Duration.ZERO, TIMEOUT))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("warningThreshold must be positive: PT0S");
            assertThatThrownBy(() -> new HandlerTimeout(WARNING, Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("timeout must be positive: PT-1S");
            assertThatThrownBy(() -> LaneSettings.DEFAULT.withHandlerTimeout(Duration.ofSeconds(40), TIMEOUT))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("warningThreshold must not exceed timeout: PT40S > PT30S");
            assertThatThrownBy(() -> new HandlerTimeout(WARNING, Duration.ofHours(25)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("timeout must be at most PT24H: PT25H");
            assertThat(new HandlerTimeout(TIMEOUT, TIMEOUT).timeout()).isEqualTo(TIMEOUT);
        }

        @Test
        void theSweepRunsEveryTenthOfTheWarningWithinOneMillisecondAndOneSecond() {
            assertThat(new HandlerTimeout(WARNING, TIMEOUT).sweepPeriod()).isEqualTo(Duration.ofSeconds(1));
            assertThat(new HandlerTimeout(Duration.ofMillis(500), TIMEOUT).sweepPeriod())
                    .isEqualTo(Duration.ofMillis(50));
            assertThat(new HandlerTimeout(Duration.ofNanos(1), TIMEOUT).sweepPeriod())
                    .isEqualTo(Duration.ofMillis(1));
        }

        @Test
        void processorsAndCommandsWarnAtTenSecondsAndTimeOutAtThirtyAndCommandsDoNotRetryATimeout() {
            HandlerTimeout expected = new HandlerTimeout(Duration.ofSeconds(10), Duration.ofSeconds(30));
            assertThat(LaneSettings.DEFAULT.handlerTimeout()).isEqualTo(expected);
            assertThat(CommandDispatcher.DEFAULT_SETTINGS.handlerTimeout()).isEqualTo(expected);
            HandlerTimeoutException timeout =
                    new HandlerTimeoutException("CommandDispatcher", "bank.account/a-1", TIMEOUT, 1);
            assertThat(CommandDispatcher.DEFAULT_RETRY_POLICY.shouldRetry(1, timeout))
                    .isFalse();
            assertThat(CommandDispatcher.DEFAULT_RETRY_POLICY.shouldRetry(1, new IllegalStateException("outage")))
                    .isTrue();
            assertThat(LaneSettings.DEFAULT.retryPolicy().shouldRetry(1, timeout))
                    .isTrue();
            assertThat(LaneSettings.DEFAULT.withoutHandlerTimeout().handlerTimeout())
                    .isNull();
        }
    }

    /** Ends its handler (through {@code onSweep}) the first time its id is read once armed. */
    private static final class EndsOnTheSweep implements MessageExchange<String> {
        private final AggregateId aggregateId;
        private final String message;
        private final Runnable onSweep;
        private final AtomicBoolean armed = new AtomicBoolean();
        final AtomicInteger settlements = new AtomicInteger();
        final AtomicReference<@Nullable Throwable> rejection = new AtomicReference<>();
        volatile boolean fired;

        EndsOnTheSweep(String id, Runnable onSweep) {
            this.aggregateId = AggregateId.of(TestExchange.ORDER, id);
            this.message = id + "#0";
            this.onSweep = onSweep;
        }

        void arm() {
            armed.set(true);
        }

        @Override
        public String message() {
            return message;
        }

        @Override
        public AggregateId aggregateId() {
            if (armed.compareAndSet(true, false)) {
                fired = true;
                onSweep.run();
            }
            return aggregateId;
        }

        @Override
        public void acknowledge() {
            settlements.incrementAndGet();
        }

        @Override
        public void reject(Throwable reason) {
            settlements.incrementAndGet();
            rejection.set(reason);
        }
    }
}
