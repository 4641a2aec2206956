package dev.lanes.dispatch;

import static dev.lanes.dispatch.DispatcherFixture.PROMPTLY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.test.logging.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

class MetricsTest {
    private final DispatcherFixture fixture = new DispatcherFixture("metrics", 2);

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void recordsQueueWaitHandlerTimeAndEveryOutcomePerNamedAggregate() {
        RecordingMetrics metrics = new RecordingMetrics();
        AtomicLong clock = new AtomicLong();
        Sinks.Empty<Void> release = Sinks.empty();
        AtomicBoolean slowCalled = new AtomicBoolean(); // its queue wait is recorded just before the call
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> {
                    clock.addAndGet(5_000);
                    return switch (exchange.message()) {
                        case "ok#0" -> Mono.empty();
                        case "bad#0" -> Mono.error(new IllegalStateException("bad"));
                        default -> {
                            slowCalled.set(true);
                            yield release.asMono();
                        }
                    };
                })
                .settings(LaneSettings.DEFAULT
                        .withStrategy(LaneStrategy.KEYED)
                        .withBounds(1, 100)
                        .withOverflow(LaneSettings.Overflow.REJECT)
                        .withRetryPolicy(
                                RetryPolicy.DEFAULT.withMaxRetries(1).withBackoff(Duration.ZERO, Duration.ZERO)))
                .metrics(metrics)
                .nanoTime(clock::get));

        assertThat(metrics.dispatcher.get()).isEqualTo("TestDispatcher");
        assertThat(metrics.namedAggregate.get()).isEqualTo(TestExchange.ORDER.materialize());
        TestExchange ok = TestExchange.of("ok", 0);
        TestExchange bad = TestExchange.of("bad", 0);
        TestExchange slow = TestExchange.of("slow", 0);
        TestExchange overflow = TestExchange.of("slow", 1);
        List.of(ok, bad, slow, overflow).forEach(fixture::emit);
        await().atMost(PROMPTLY)
                .until(() -> ok.acknowledged() && bad.acknowledged() && overflow.settled.isDone() && slowCalled.get());

        assertThat(metrics.outcomes.get(Outcome.HANDLED).sum()).isEqualTo(1);
        assertThat(metrics.outcomes.get(Outcome.RETRIED).sum()).isEqualTo(1);
        assertThat(metrics.outcomes.get(Outcome.PARKED).sum()).isEqualTo(1);
        assertThat(metrics.outcomes.get(Outcome.REJECTED).sum()).isEqualTo(1);
        assertThat(metrics.handlerNanos.sum()).isPositive();
        assertThat(metrics.queueWaits.sum()).isEqualTo(3);
        assertThat(metrics.stats.get().get().inFlight()).isEqualTo(1);

        dispatcher.forceStop();
        assertThat(metrics.outcomes.get(Outcome.CANCELLED).sum()).isEqualTo(1);
        assertThat(metrics.closed).isTrue();
        assertThat(logs.lines(Level.WARN))
                .singleElement()
                .satisfies(line -> assertThat(line.message()).startsWith("Parked a message for sales.order/bad"));
    }

    @Test
    void statsShowLaneSkewAndTheHottestIdsWithoutEverTaggingAnId() {
        Sinks.Empty<Void> release = Sinks.empty();
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> release.asMono())
                .settings(LaneSettings.DEFAULT.withStrategy(LaneStrategy.KEYED).withBounds(64, 1000))
                .hotKeySampling(1));
        List<TestExchange> sent = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            sent.add(TestExchange.of("hot", i));
        }
        for (int i = 0; i < 10; i++) {
            sent.add(TestExchange.of("cold-" + i, i));
        }
        sent.forEach(fixture::emit);
        await().atMost(PROMPTLY).until(() -> dispatcher.stats().queued() == 50);

        DispatcherStats stats = dispatcher.stats();
        assertThat(stats.lanes()).isEqualTo(11);
        assertThat(stats.deepestLane()).isEqualTo(40);
        assertThat(stats.laneSkew()).isCloseTo(40 / (50 / 11.0), org.assertj.core.data.Offset.offset(0.001));
        assertThat(stats.hottestIds()).first().satisfies(hot -> {
            assertThat(hot.id()).isEqualTo("hot");
            assertThat(hot.count()).isEqualTo(40);
        });
        release.tryEmitEmpty();
        await().atMost(PROMPTLY).until(() -> sent.stream().allMatch(TestExchange::acknowledged));
        // a lane's depth drops once its batch is settled, just after the last acknowledgement
        await().atMost(PROMPTLY).until(() -> dispatcher.stats().queued() == 0);
        assertThat(dispatcher.stats().laneSkew()).isZero();
    }

    @Test
    void aThrowingRecorderNeverBreaksALane() {
        DispatcherMetrics throwing = (dispatcher, namedAggregate, stats) -> new DispatcherMetrics.LaneRecorder() {
            @Override
            public void queueWait(long nanos) {
                throw new IllegalStateException("metrics backend down");
            }

            @Override
            public void outcome(Outcome outcome, long handlerNanos) {
                throw new IllegalStateException("metrics backend down");
            }
        };
        fixture.started(fixture.builder(exchange -> Mono.empty()).metrics(throwing));
        TestExchange exchange = TestExchange.of("o-1", 0);
        fixture.emit(exchange);
        await().atMost(PROMPTLY).until(exchange::acknowledged);
        assertThat(logs.lines(Level.WARN))
                .as("the first failure is a warning with its stack trace; the next are ignored")
                .singleElement()
                .satisfies(line -> {
                    assertThat(line.message())
                            .isEqualTo("Metrics recorder of AggregateDispatcher[TestDispatcher/sales.order] failed;"
                                    + " further failures are ignored");
                    assertThat(line.details()).startsWith("java.lang.IllegalStateException: metrics backend down");
                });
    }

    @Test
    void hotKeyWindowsForgetOldTraffic() {
        AtomicLong clock = new AtomicLong();
        HotKeyTracker tracker = new HotKeyTracker(4, 1_000, clock::get);
        for (int i = 0; i < 10; i++) {
            tracker.record("old");
        }
        clock.set(1_000);
        tracker.record("new");
        assertThat(tracker.hottest()).extracting(HotKey::id).containsExactly("old", "new");
        clock.set(2_000);
        tracker.record("new");
        assertThat(tracker.hottest()).extracting(HotKey::id).containsExactly("new");
        clock.set(5_000);
        assertThat(tracker.hottest()).isEmpty();
    }

    @Test
    void hotKeySketchStaysBoundedAndKeepsTheHeavyHitter() {
        HotKeyTracker tracker = new HotKeyTracker(16, Long.MAX_VALUE, () -> 0);
        for (int i = 0; i < 100_000; i++) {
            tracker.record(i % 10 == 0 ? "heavy" : "id-" + i);
        }
        List<HotKey> hottest = tracker.hottest();
        assertThat(hottest).hasSizeLessThanOrEqualTo(10);
        assertThat(hottest.get(0).id()).isEqualTo("heavy");
        assertThat(hottest.get(0).count() - hottest.get(0).error()).isLessThanOrEqualTo(10_000);
        assertThat(hottest.get(0).count()).isGreaterThanOrEqualTo(10_000);
    }

    static final class RecordingMetrics implements DispatcherMetrics {
        final AtomicReference<String> dispatcher = new AtomicReference<>();
        final AtomicReference<MaterializedNamedAggregate> namedAggregate = new AtomicReference<>();
        final AtomicReference<Supplier<DispatcherStats>> stats = new AtomicReference<>();
        final Map<Outcome, LongAdder> outcomes = new EnumMap<>(Outcome.class);
        final LongAdder queueWaits = new LongAdder();
        final LongAdder handlerNanos = new LongAdder();
        final AtomicBoolean closed = new AtomicBoolean();

        RecordingMetrics() {
            for (Outcome outcome : Outcome.values()) {
                outcomes.put(outcome, new LongAdder());
            }
        }

        @Override
        public LaneRecorder bind(
                String dispatcher, MaterializedNamedAggregate namedAggregate, Supplier<DispatcherStats> stats) {
            this.dispatcher.set(dispatcher);
            this.namedAggregate.set(namedAggregate);
            this.stats.set(stats);
            return new LaneRecorder() {
                @Override
                public void queueWait(long nanos) {
                    queueWaits.increment();
                }

                @Override
                public void outcome(Outcome outcome, long nanos) {
                    outcomes.get(outcome).increment();
                    handlerNanos.add(nanos);
                }

                @Override
                public void close() {
                    closed.set(true);
                }
            };
        }
    }
}
