package dev.lanes.dispatch;

import static dev.lanes.dispatch.DispatcherFixture.PROMPTLY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** Per-lane and total bounds: pressure goes back to the sender of the full lane, or to the source at the total. */
class BoundsTest {
    private final DispatcherFixture fixture = new DispatcherFixture("bounds", 2);

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void aFullLaneRejectsToItsSenderWhileOtherLanesKeepTaking() {
        Sinks.Empty<Void> release = Sinks.empty();
        AggregateDispatcher<String> dispatcher = fixture.started(
                fixture.builder(exchange -> exchange.aggregateId().id().equals("hot") ? release.asMono() : Mono.empty())
                        .settings(LaneSettings.DEFAULT
                                .withStrategy(LaneStrategy.KEYED)
                                .withBounds(4, 100)
                                .withOverflow(LaneSettings.Overflow.REJECT)));

        List<TestExchange> hot = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            TestExchange exchange = TestExchange.of("hot", i);
            hot.add(exchange);
            fixture.emit(exchange);
        }
        TestExchange other = TestExchange.of("other", 0);
        fixture.emit(other);

        await().atMost(PROMPTLY).until(other::acknowledged);
        await().atMost(PROMPTLY).until(() -> hot.subList(4, 10).stream().allMatch(e -> e.settled.isDone()));
        assertThat(hot.subList(4, 10))
                .allSatisfy(e -> assertThat(e.rejection())
                        .isInstanceOfSatisfying(ExchangeRejectedException.class, rejected -> {
                            assertThat(rejected.reason()).isEqualTo(ExchangeRejectedException.Reason.LANE_FULL);
                            assertThat(rejected.reason().retryLater()).isTrue();
                            assertThat(rejected)
                                    .hasMessageContaining("AggregateDispatcher[TestDispatcher/sales.order]")
                                    .hasMessageContaining("sales.order/hot")
                                    .hasMessageContaining("maxQueuedPerLane=4");
                        }));
        assertThat(hot.subList(0, 4)).noneMatch(e -> e.settled.isDone());
        assertThat(dispatcher.stats().rejected()).isEqualTo(6);

        release.tryEmitEmpty();
        await().atMost(PROMPTLY).until(() -> hot.subList(0, 4).stream().allMatch(TestExchange::acknowledged));
    }

    @Test
    void underPauseALaneOverItsBoundKeepsTakingFromTheSharedBudgetWhileOtherLanesFlow() {
        Sinks.Empty<Void> release = Sinks.empty();
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(
                        exchange -> exchange.aggregateId().id().equals("hot") ? release.asMono() : Mono.empty())
                .settings(LaneSettings.DEFAULT.withStrategy(LaneStrategy.KEYED).withBounds(2, 8)));

        List<TestExchange> hot = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            hot.add(TestExchange.of("hot", i));
        }
        hot.forEach(fixture::emit);
        List<TestExchange> others = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            others.add(TestExchange.of("other-" + i, i));
        }
        others.forEach(fixture::emit);

        // the hot lane holds 6 > 2, within the budget of 8: the 50 others all pass through the 2 slots left
        await().atMost(PROMPTLY).until(() -> others.stream().allMatch(TestExchange::acknowledged));
        assertThat(hot).noneMatch(e -> e.settled.isDone());
        assertThat(dispatcher.stats().rejected()).isZero();
        assertThat(dispatcher.stats().deepestLane()).isEqualTo(6);

        release.tryEmitEmpty();
        await().atMost(PROMPTLY).until(() -> hot.stream().allMatch(TestExchange::acknowledged));
        assertThat(dispatcher.stats().rejected()).isZero();
    }

    @Test
    void underPauseTheSourcePausesOnlyWhenTheWholeBudgetIsHeldAndResumesWhenItFrees() {
        Sinks.Empty<Void> release = Sinks.empty();
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(
                        exchange -> exchange.aggregateId().id().equals("hot") ? release.asMono() : Mono.empty())
                .settings(LaneSettings.DEFAULT.withStrategy(LaneStrategy.KEYED).withBounds(2, 8)));

        List<TestExchange> hot = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            hot.add(TestExchange.of("hot", i));
        }
        hot.forEach(fixture::emit);
        TestExchange other = TestExchange.of("other", 0);
        fixture.emit(other);

        await().atMost(PROMPTLY)
                .until(() -> Integer.valueOf(1).equals(fixture.source.scan(reactor.core.Scannable.Attr.BUFFERED)));
        assertThat(other.settled).isNotDone();
        assertThat(dispatcher.stats().queued()).isEqualTo(8);

        release.tryEmitEmpty();
        await().atMost(PROMPTLY).until(other::acknowledged);
        assertThat(hot).allMatch(TestExchange::acknowledged);
        assertThat(dispatcher.stats().rejected()).isZero();
    }

    @Test
    void atTheTotalBoundTheDispatcherStopsTakingFromItsSourceAndLosesNothing() {
        Sinks.Empty<Void> release = Sinks.empty();
        AtomicInteger invocations = new AtomicInteger();
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> {
                    invocations.incrementAndGet();
                    return release.asMono();
                })
                .settings(LaneSettings.DEFAULT.withStrategy(LaneStrategy.KEYED).withBounds(8, 8)));

        List<TestExchange> sent = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            TestExchange exchange = TestExchange.of("id-" + i, i);
            sent.add(exchange);
            fixture.emit(exchange);
        }

        await().atMost(PROMPTLY).until(() -> invocations.get() == 8);
        assertThat(dispatcher.stats().queued()).isEqualTo(8);
        assertThat(sent).noneMatch(e -> e.settled.isDone());
        assertThat(fixture.source.scan(reactor.core.Scannable.Attr.BUFFERED)).isEqualTo(12);

        release.tryEmitEmpty();
        await().atMost(PROMPTLY).until(() -> sent.stream().allMatch(TestExchange::acknowledged));
        assertThat(invocations).hasValue(20);
    }

    @Test
    void memoryFollowsWhatIsQueuedNotHowManyIdsWereSeen() {
        AggregateDispatcher<String> dispatcher = fixture.started(fixture.builder(exchange -> Mono.empty())
                .settings(LaneSettings.DEFAULT.withStrategy(LaneStrategy.KEYED).withBounds(16, 4096)));
        int ids = 1_000_000;
        AtomicInteger acknowledged = new AtomicInteger();
        AtomicInteger maxLanes = new AtomicInteger();
        for (int i = 0; i < ids; i++) {
            fixture.emit(new CountingExchange("id-" + i, acknowledged));
            if (i % 50_000 == 0) {
                maxLanes.accumulateAndGet(dispatcher.stats().lanes(), Math::max);
            }
        }

        await().atMost(java.time.Duration.ofSeconds(60)).until(() -> acknowledged.get() == ids);
        assertThat(maxLanes.get()).isLessThanOrEqualTo(4096);
        // an exchange is acknowledged before its lane moves on: the last lane retires, and its slot frees, just after
        await().atMost(PROMPTLY)
                .until(() ->
                        dispatcher.stats().lanes() == 0 && dispatcher.stats().queued() == 0);
        DispatcherStats stats = dispatcher.stats();
        assertThat(stats.handled()).isEqualTo(ids);
        assertThat(stats.hottestIds()).hasSizeLessThanOrEqualTo(10);
    }

    @Nested
    class Validation {
        @Test
        void nonPositiveBoundsAreRejectedNamingTheValue() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> LaneSettings.DEFAULT.withBounds(0, 10))
                    .withMessage("maxQueuedPerLane must be positive: 0");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> LaneSettings.DEFAULT.withBounds(1, -5))
                    .withMessage("maxQueued must be positive: -5");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> LaneSettings.DEFAULT.withParallelism(0))
                    .withMessage("parallelism must be positive: 0");
        }

        @Test
        void aLaneBoundAboveTheTotalIsRejected() {
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> LaneSettings.DEFAULT.withBounds(100, 10))
                    .withMessage("maxQueuedPerLane must not exceed maxQueued: 100 > 10");
        }
    }

    /** A light exchange for the million-id test. */
    private static final class CountingExchange implements MessageExchange<String> {
        private final dev.lanes.api.AggregateId aggregateId;
        private final AtomicInteger acknowledged;

        CountingExchange(String id, AtomicInteger acknowledged) {
            this.aggregateId = dev.lanes.api.AggregateId.of(TestExchange.ORDER, id);
            this.acknowledged = acknowledged;
        }

        @Override
        public String message() {
            return aggregateId.id();
        }

        @Override
        public dev.lanes.api.AggregateId aggregateId() {
            return aggregateId;
        }

        @Override
        public void acknowledge() {
            acknowledged.incrementAndGet();
        }

        @Override
        public void reject(Throwable reason) {
            throw new AssertionError("rejected " + aggregateId, reason);
        }
    }
}
