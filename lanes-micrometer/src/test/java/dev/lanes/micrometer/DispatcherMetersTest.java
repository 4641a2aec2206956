package dev.lanes.micrometer;

import static dev.lanes.micrometer.LanesMicrometer.AGGREGATE_TAG;
import static dev.lanes.micrometer.LanesMicrometer.DEEPEST_LANE;
import static dev.lanes.micrometer.LanesMicrometer.DISPATCHER_TAG;
import static dev.lanes.micrometer.LanesMicrometer.HANDLE;
import static dev.lanes.micrometer.LanesMicrometer.IN_FLIGHT;
import static dev.lanes.micrometer.LanesMicrometer.LANES;
import static dev.lanes.micrometer.LanesMicrometer.LANE_SKEW;
import static dev.lanes.micrometer.LanesMicrometer.OUTCOMES;
import static dev.lanes.micrometer.LanesMicrometer.OUTCOME_TAG;
import static dev.lanes.micrometer.LanesMicrometer.QUEUED;
import static dev.lanes.micrometer.LanesMicrometer.QUEUE_WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.DispatcherStats;
import dev.lanes.dispatch.ExchangeHandler;
import dev.lanes.dispatch.ExchangeRejectedException;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.dispatch.TestExchange;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.core.tck.MeterRegistryAssert;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

class DispatcherMetersTest {
    private static final Duration PROMPTLY = Duration.ofSeconds(10);
    private static final long HANDLER_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private static final Tags ORDER_TAGS = Tags.of(DISPATCHER_TAG, "OrderDispatcher", AGGREGATE_TAG, "sales.order");

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    /** One worker: lanes take turns, so a handler's time is exactly what it adds to the clock. */
    private final AggregateSchedulerSupplier schedulers = AggregateSchedulers.perType("metrics", 1);

    private final Sinks.Many<MessageExchange<String>> source =
            Sinks.many().unicast().onBackpressureBuffer();
    private final AtomicLong clock = new AtomicLong();
    private final Sinks.Empty<Void> release = Sinks.empty();
    /** Handler calls that wait for {@link #release}: once counted, the dispatcher recorded that call's queue wait. */
    private final AtomicLong heldCalls = new AtomicLong();

    private final List<AggregateDispatcher<String>> dispatchers = new ArrayList<>();

    @AfterEach
    void stop() {
        dispatchers.forEach(AggregateDispatcher::forceStop);
        schedulers.forceStop();
    }

    /** {@code ok} is handled, {@code bad} fails every attempt, anything else waits for {@link #release}. */
    private final ExchangeHandler<String> handler = exchange -> {
        clock.addAndGet(HANDLER_NANOS);
        if (exchange.message().startsWith("ok")) {
            return Mono.empty();
        }
        if (exchange.message().startsWith("bad")) {
            return Mono.error(new IllegalStateException("bad"));
        }
        heldCalls.incrementAndGet();
        return release.asMono();
    };

    private AggregateDispatcher.Builder<String> builder(String name) {
        return AggregateDispatcher.<String>builder(name, TestExchange.ORDER)
                .source(source.asFlux())
                .handler(handler)
                .schedulers(schedulers)
                .parkingLot(parked -> {}) // parking logs each message; the counters are what this test reads
                .settings(LaneSettings.DEFAULT
                        .withStrategy(LaneStrategy.KEYED)
                        .withBounds(1, 100)
                        .withOverflow(LaneSettings.Overflow.REJECT)
                        .withRetryPolicy(
                                RetryPolicy.DEFAULT.withMaxRetries(1).withBackoff(Duration.ZERO, Duration.ZERO)))
                .metrics(LanesMicrometer.dispatcherMetrics(registry))
                .nanoTime(clock::get);
    }

    private AggregateDispatcher<String> started(AggregateDispatcher.Builder<String> builder) {
        AggregateDispatcher<String> dispatcher = builder.build();
        dispatchers.add(dispatcher);
        dispatcher.prepare(RuntimeContext.standalone()).block(PROMPTLY);
        dispatcher.start();
        return dispatcher;
    }

    private void emit(TestExchange... exchanges) {
        for (TestExchange exchange : exchanges) {
            source.emitNext(exchange, Sinks.EmitFailureHandler.busyLooping(PROMPTLY));
        }
    }

    private Counter outcomes(String outcome) {
        return registry.get(OUTCOMES).tags(ORDER_TAGS).tag(OUTCOME_TAG, outcome).counter();
    }

    private Timer handle(String outcome) {
        return registry.get(HANDLE).tags(ORDER_TAGS).tag(OUTCOME_TAG, outcome).timer();
    }

    private double gauge(String name) {
        return registry.get(name).tags(ORDER_TAGS).gauge().value();
    }

    @Nested
    class Outcomes {

        @Test
        void eachOutcomeIsCountedOnceAndEachHandlerAttemptTimedUnderItsOutcome() {
            AggregateDispatcher<String> dispatcher = started(builder("OrderDispatcher"));
            TestExchange ok = TestExchange.of("ok", 0);
            TestExchange bad = TestExchange.of("bad", 0);
            TestExchange held = TestExchange.of("held", 0);
            TestExchange overflow = TestExchange.of("held", 1); // the held lane holds its bound of 1
            emit(ok, bad, held, overflow);
            await().atMost(PROMPTLY).until(() -> ok.acknowledged() && bad.acknowledged() && overflow.rejected());
            await().atMost(PROMPTLY).until(() -> heldCalls.get() == 1);
            assertThat(dispatcher.stats().inFlight()).isEqualTo(1);

            assertThat(outcomes("handled").count()).isEqualTo(1);
            assertThat(outcomes("retried").count()).isEqualTo(1);
            assertThat(outcomes("parked").count()).isEqualTo(1);
            assertThat(outcomes("rejected").count()).isEqualTo(1);
            assertThat(outcomes("cancelled").count()).isZero();
            for (String attempt : List.of("handled", "retried", "parked")) {
                assertThat(handle(attempt).count()).as(attempt).isEqualTo(1);
                assertThat(handle(attempt).totalTime(TimeUnit.NANOSECONDS))
                        .as(attempt)
                        .isEqualTo(HANDLER_NANOS);
            }
            assertThat(overflow.rejection())
                    .isInstanceOfSatisfying(
                            ExchangeRejectedException.class,
                            rejected -> assertThat(rejected.reason())
                                    .isEqualTo(ExchangeRejectedException.Reason.LANE_FULL));
            // ok, bad and held waited for their first attempt; the retry of bad is not a queue wait
            assertThat(registry.get(QUEUE_WAIT).tags(ORDER_TAGS).timer().count())
                    .isEqualTo(3);

            dispatcher.forceStop();
            assertThat(outcomes("cancelled").count()).isEqualTo(1);
            assertThat(handle("handled").count()).isEqualTo(1); // a cancelled exchange has no handler time
        }

        @Test
        void theCountersAgreeWithTheDispatchersOwnTotals() {
            AggregateDispatcher<String> dispatcher = started(builder("OrderDispatcher"));
            List<TestExchange> sent = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                sent.add(TestExchange.of(i % 3 == 0 ? "bad-" + i : "ok-" + i, i));
            }
            emit(sent.toArray(TestExchange[]::new));
            await().atMost(PROMPTLY).until(() -> sent.stream().allMatch(TestExchange::isSettled));

            DispatcherStats stats = dispatcher.stats();
            assertThat(outcomes("handled").count()).isEqualTo(stats.handled()).isEqualTo(133);
            assertThat(outcomes("retried").count()).isEqualTo(stats.retried()).isEqualTo(67);
            assertThat(outcomes("parked").count()).isEqualTo(stats.parked()).isEqualTo(67);
            assertThat(outcomes("rejected").count()).isEqualTo(stats.rejected()).isZero();
        }
    }

    @Nested
    class Gauges {

        @Test
        void readTheDispatchersStatsWhenScraped() {
            AggregateDispatcher<String> dispatcher = started(builder("OrderDispatcher"));
            emit(TestExchange.of("held", 0), TestExchange.of("other", 0));
            await().atMost(PROMPTLY).until(() -> dispatcher.stats().inFlight() == 2);

            assertThat(gauge(QUEUED)).isEqualTo(2);
            assertThat(gauge(IN_FLIGHT)).isEqualTo(2);
            assertThat(gauge(LANES)).isEqualTo(2);
            assertThat(gauge(DEEPEST_LANE)).isEqualTo(1);
            assertThat(gauge(LANE_SKEW)).isEqualTo(1.0);

            release.tryEmitEmpty();
            await().atMost(PROMPTLY).until(() -> gauge(QUEUED) == 0);
            assertThat(gauge(LANES)).isZero();
            assertThat(gauge(LANE_SKEW)).isZero();
        }

        @Test
        void goWhenTheDispatcherStopsWhileItsTotalsStay() {
            AggregateDispatcher<String> dispatcher = started(builder("OrderDispatcher"));
            TestExchange ok = TestExchange.of("ok", 0);
            emit(ok);
            await().atMost(PROMPTLY).until(ok::acknowledged);

            dispatcher.stopGracefully().block(PROMPTLY);

            for (String gauge : List.of(QUEUED, IN_FLIGHT, LANES, DEEPEST_LANE, LANE_SKEW)) {
                MeterRegistryAssert.assertThat(registry).doesNotHaveMeterWithNameAndTags(gauge, ORDER_TAGS);
            }
            assertThat(outcomes("handled").count()).isEqualTo(1);
            assertThat(handle("handled").count()).isEqualTo(1);
        }

        @Test
        void ofADispatcherBuiltAgainUnderTheSameNameReportItWhileTheTotalsGoOn() {
            AggregateDispatcher<String> first = started(builder("OrderDispatcher"));
            TestExchange ok = TestExchange.of("ok", 0);
            emit(ok);
            await().atMost(PROMPTLY).until(ok::acknowledged);
            first.stopGracefully().block(PROMPTLY);

            Sinks.Many<MessageExchange<String>> second = Sinks.many().unicast().onBackpressureBuffer();
            AggregateDispatcher<String> again =
                    started(builder("OrderDispatcher").source(second.asFlux()));
            TestExchange held = TestExchange.of("held", 1);
            TestExchange okAgain = TestExchange.of("ok", 1);
            second.emitNext(held, Sinks.EmitFailureHandler.busyLooping(PROMPTLY));
            second.emitNext(okAgain, Sinks.EmitFailureHandler.busyLooping(PROMPTLY));
            await().atMost(PROMPTLY)
                    .until(() -> okAgain.acknowledged() && again.stats().inFlight() == 1);

            assertThat(gauge(QUEUED)).isEqualTo(1);
            assertThat(outcomes("handled").count()).isEqualTo(2);
        }

        @Test
        void doNotKeepAnUnreachableDispatcherAlive() {
            WeakReference<AggregateDispatcher<String>> reference = startUnreachableDispatcher();

            await().atMost(PROMPTLY).pollInterval(Duration.ofMillis(50)).until(() -> {
                System.gc();
                return reference.get() == null;
            });
            assertThat(gauge(QUEUED)).isNaN();
            assertThat(gauge(LANES)).isNaN();
        }

        /** A started dispatcher that nothing but the registry could still reach (its source keeps no subscriber). */
        private WeakReference<AggregateDispatcher<String>> startUnreachableDispatcher() {
            AggregateDispatcher<String> dispatcher = AggregateDispatcher.<String>builder(
                            "OrderDispatcher", TestExchange.ORDER)
                    .source(Flux.never())
                    .handler(handler)
                    .schedulers(schedulers)
                    .metrics(LanesMicrometer.dispatcherMetrics(registry))
                    .build();
            dispatcher.prepare(RuntimeContext.standalone()).block(PROMPTLY);
            dispatcher.start();
            assertThat(gauge(QUEUED)).isZero();
            return new WeakReference<>(dispatcher);
        }

        @Test
        void reportNaNInsteadOfThrowingWhenTheStatsFail() {
            DispatcherMeters meters = (DispatcherMeters) LanesMicrometer.dispatcherMetrics(registry)
                    .bind("OrderDispatcher", TestExchange.ORDER.materialize(), () -> {
                        throw new IllegalStateException("stats unavailable");
                    });

            assertThat(gauge(QUEUED)).isNaN();
            meters.close();
        }
    }

    @Test
    void extraTagsGoOnEveryMeterBesideDispatcherAndAggregate() {
        AggregateDispatcher<String> dispatcher = AggregateDispatcher.<String>builder(
                        "OrderDispatcher", TestExchange.ORDER)
                .source(source.asFlux())
                .handler(handler)
                .schedulers(schedulers)
                .metrics(LanesMicrometer.dispatcherMetrics(registry, Tags.of("service", "shop")))
                .build();
        dispatchers.add(dispatcher);
        dispatcher.prepare(RuntimeContext.standalone()).block(PROMPTLY);

        assertThat(registry.getMeters())
                .isNotEmpty()
                .allSatisfy(meter -> assertThat(meter.getId().getTags())
                        .contains(
                                Tag.of("service", "shop"),
                                Tag.of(DISPATCHER_TAG, "OrderDispatcher"),
                                Tag.of(AGGREGATE_TAG, "sales.order")));
    }
}
