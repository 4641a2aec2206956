package dev.lanes.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Many producers, many ids, sequence numbers per id checked by the handler: zero violations. Handlers mix synchronous
 * completion, completion on a foreign thread and retried failures, so every hand-off path of a lane is exercised.
 */
class PerIdOrderTest {

    @ParameterizedTest
    @EnumSource(LaneStrategy.class)
    void noOrderingViolationUnderConcurrentProducers(LaneStrategy strategy) {
        assertNoViolations(strategy, 8, 2_000, 200_000);
    }

    /** Few ids, so lanes are deep and owners finish many envelopes before handing off to a foreign thread. */
    @ParameterizedTest
    @EnumSource(LaneStrategy.class)
    void noOrderingViolationWithDeepLanesAndForeignThreadHandOffs(LaneStrategy strategy) {
        assertNoViolations(strategy, 8, 16, 100_000);
    }

    @Tag("stress")
    @ParameterizedTest
    @EnumSource(LaneStrategy.class)
    void noOrderingViolationOverAMillionMessages(LaneStrategy strategy) {
        assertNoViolations(strategy, 8, 10_000, 1_000_000);
    }

    private static void assertNoViolations(LaneStrategy strategy, int producers, int ids, int messages) {
        AggregateSchedulerSupplier schedulers = AggregateSchedulers.perType("order", 4);
        ConcurrentHashMap<String, AtomicLong> lastSeen = new ConcurrentHashMap<>();
        AtomicInteger violations = new AtomicInteger();
        AtomicInteger acknowledged = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        AtomicInteger calls = new AtomicInteger();
        ConcurrentHashMap<String, Boolean> failedOnce = new ConcurrentHashMap<>();
        List<Flux<MessageExchange<long[]>>> sources = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int producer = p;
            sources.add(Flux.range(0, messages / producers)
                    .map(i -> {
                        int idNumber = (i % (ids / producers)) * producers + producer;
                        long sequence = i / (ids / producers);
                        return (MessageExchange<long[]>)
                                new SequencedExchange("id-" + idNumber, sequence, acknowledged, rejected);
                    })
                    .subscribeOn(Schedulers.parallel()));
        }
        AggregateDispatcher<long[]> dispatcher = AggregateDispatcher.<long[]>builder("OrderCheck", TestExchange.ORDER)
                .source(Flux.merge(sources))
                .schedulers(schedulers)
                .settings(LaneSettings.DEFAULT
                        .withStrategy(strategy)
                        .withParallelism(256)
                        .withRetryPolicy(
                                RetryPolicy.DEFAULT.withMaxRetries(2).withBackoff(Duration.ZERO, Duration.ZERO)))
                .handler(exchange -> {
                    String id = exchange.aggregateId().id();
                    long sequence = exchange.message()[0];
                    int call = calls.incrementAndGet();
                    if (sequence % 97 == 5 && failedOnce.putIfAbsent(id + "/" + sequence, true) == null) {
                        return Mono.error(new IllegalStateException("transient"));
                    }
                    Mono<Void> check = Mono.fromRunnable(() -> {
                        long previous = lastSeen.computeIfAbsent(id, k -> new AtomicLong(-1))
                                .getAndSet(sequence);
                        if (previous != sequence - 1) {
                            violations.incrementAndGet();
                        }
                    });
                    return call % 3 == 0
                            ? check.subscribeOn(Schedulers.parallel()).then()
                            : check.then();
                })
                .build();
        try {
            dispatcher.prepare(RuntimeContext.standalone()).block(Duration.ofSeconds(10));
            dispatcher.start();
            await().atMost(Duration.ofMinutes(2)).until(() -> acknowledged.get() + rejected.get() == messages);
            assertThat(rejected).hasValue(0);
            assertThat(violations).hasValue(0);
            assertThat(lastSeen).hasSize(ids);
            assertThat(dispatcher.stats().parked()).isZero();
        } finally {
            dispatcher.forceStop();
            schedulers.forceStop();
        }
    }

    private static final class SequencedExchange implements MessageExchange<long[]> {
        private final AggregateId aggregateId;
        private final long[] sequence;
        private final AtomicInteger acknowledged;
        private final AtomicInteger rejected;

        SequencedExchange(String id, long sequence, AtomicInteger acknowledged, AtomicInteger rejected) {
            this.aggregateId = AggregateId.of(TestExchange.ORDER, id);
            this.sequence = new long[] {sequence};
            this.acknowledged = acknowledged;
            this.rejected = rejected;
        }

        @Override
        public long[] message() {
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
            rejected.incrementAndGet();
        }
    }
}
