package dev.lanes.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A lane's owner handles envelopes whose handlers end at once in a row and subtracts them from the lane's count once per
 * batch. When it hands the lane on (a handler that ends later, a retry), the count must already be exact: the handler
 * may end on another thread at once, and whoever continues the lane takes as many envelopes as the count says.
 */
class LaneHandOverTest {
    private static final int IDS = 4;
    private static final int MESSAGES = 200_000;

    @ParameterizedTest
    @EnumSource(LaneStrategy.class)
    void aHandlerThatEndsElsewhereRightAfterInlineOnesContinuesTheLaneInOrder(LaneStrategy strategy) {
        Scheduler elsewhere = Schedulers.newParallel("hand-over-ends", 2);
        try {
            assertEveryMessageHandledInOrder(
                    strategy,
                    sequence -> sequence % 8 == 7 ? Mono.<Void>empty().publishOn(elsewhere) : Mono.empty(),
                    RetryPolicy.DEFAULT);
        } finally {
            elsewhere.dispose();
        }
    }

    @ParameterizedTest
    @EnumSource(LaneStrategy.class)
    void aRetryRightAfterInlineEndsContinuesTheLaneInOrder(LaneStrategy strategy) {
        AtomicLongArray failedOnce = new AtomicLongArray(MESSAGES);
        assertEveryMessageHandledInOrder(
                strategy,
                sequence -> sequence % 8 == 7 && failedOnce.compareAndSet((int) sequence, 0, 1)
                        ? Mono.error(new IllegalStateException("transient"))
                        : Mono.empty(),
                RetryPolicy.DEFAULT.withMaxRetries(1).withBackoff(Duration.ZERO, Duration.ZERO));
    }

    /**
     * An owner moving on links the envelope it left to itself, so a consumed envelope in the old generation keeps
     * nothing alive; a force stop walking the lane meanwhile starts again from the lane's oldest node. Every exchange is
     * settled exactly once, whenever the stop lands.
     */
    @ParameterizedTest
    @EnumSource(LaneStrategy.class)
    void aForceStopWhileOwnersConsumeSettlesEveryExchangeExactlyOnce(LaneStrategy strategy) {
        for (int round = 0; round < 10; round++) {
            AggregateSchedulerSupplier schedulers = AggregateSchedulers.perType("hand-over-stop", 2);
            java.util.List<TestExchange> emitted = new java.util.concurrent.CopyOnWriteArrayList<>();
            AtomicInteger handled = new AtomicInteger();
            int stopAfter = 2_000 + round * 500;
            AggregateDispatcher<String> dispatcher = AggregateDispatcher.<String>builder(
                            "HandOverStop", TestExchange.ORDER)
                    .source(Flux.range(0, 20_000).map(i -> {
                        TestExchange exchange = TestExchange.of("id-" + (i % 8), i);
                        emitted.add(exchange);
                        return exchange;
                    }))
                    .schedulers(schedulers)
                    .settings(LaneSettings.DEFAULT.withStrategy(strategy).withParallelism(4))
                    .handler(exchange -> {
                        handled.incrementAndGet();
                        return Mono.empty();
                    })
                    .build();
            try {
                dispatcher.prepare(RuntimeContext.standalone()).block(Duration.ofSeconds(10));
                Schedulers.boundedElastic().schedule(dispatcher::start);
                await().atMost(Duration.ofSeconds(10)).until(() -> handled.get() >= stopAfter);
                dispatcher.forceStop();

                await().atMost(Duration.ofSeconds(10))
                        .until(() -> emitted.stream().allMatch(e -> e.settled.isDone()));
                assertThat(emitted).allMatch(e -> e.settlements.get() == 1);
            } finally {
                dispatcher.forceStop();
                schedulers.forceStop();
            }
        }
    }

    private interface Handling {
        Mono<Void> handle(long sequence);
    }

    private static void assertEveryMessageHandledInOrder(
            LaneStrategy strategy, Handling handling, RetryPolicy retryPolicy) {
        AggregateSchedulerSupplier schedulers = AggregateSchedulers.perType("hand-over", 2);
        AtomicLongArray lastSeen = new AtomicLongArray(IDS);
        for (int i = 0; i < IDS; i++) {
            lastSeen.set(i, -1);
        }
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger acknowledged = new AtomicInteger();
        AggregateId[] ids = new AggregateId[IDS];
        for (int i = 0; i < IDS; i++) {
            ids[i] = AggregateId.of(TestExchange.ORDER, "id-" + i);
        }
        AggregateDispatcher<Long> dispatcher = AggregateDispatcher.<Long>builder("HandOver", TestExchange.ORDER)
                .source(Flux.range(0, MESSAGES).map(i -> new SequencedExchange(ids[i % IDS], i, acknowledged)))
                .schedulers(schedulers)
                .settings(LaneSettings.DEFAULT
                        .withStrategy(strategy)
                        .withParallelism(IDS)
                        .withRetryPolicy(retryPolicy))
                .handler(exchange -> {
                    long sequence = exchange.message();
                    int id = (int) (sequence % IDS);
                    if (lastSeen.getAndSet(id, sequence) > sequence) { // equal: a retry of the same one
                        violations.incrementAndGet();
                    }
                    return handling.handle(sequence);
                })
                .build();
        try {
            dispatcher.prepare(RuntimeContext.standalone()).block(Duration.ofSeconds(10));
            dispatcher.start();
            await().atMost(Duration.ofMinutes(1)).until(() -> acknowledged.get() == MESSAGES);
            assertThat(violations).hasValue(0);
            DispatcherStats stats = dispatcher.stats();
            assertThat(stats.handled()).isEqualTo(MESSAGES);
            assertThat(stats.rejected()).isZero();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> dispatcher.stats().lanes() == 0);
        } finally {
            dispatcher.forceStop();
            schedulers.forceStop();
        }
    }

    private static final class SequencedExchange implements MessageExchange<Long> {
        private final AggregateId aggregateId;
        private final long sequence;
        private final AtomicInteger acknowledged;

        SequencedExchange(AggregateId aggregateId, long sequence, AtomicInteger acknowledged) {
            this.aggregateId = aggregateId;
            this.sequence = sequence;
            this.acknowledged = acknowledged;
        }

        @Override
        public Long message() {
            return sequence;
        }

        @Override
        public AggregateId aggregateId() {
            return aggregateId;
        }

        @Override
        public void acknowledge() {
            acknowledged.incrementAndGet();
        }

        @Override
        public void reject(Throwable reason) {
            throw new AssertionError("rejected " + aggregateId + "#" + sequence, reason);
        }
    }
}
