package dev.lanes.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Twenty keyed dispatchers on one supplier (a pool of 2 workers per type), each pulling 50,000 exchanges over 500 ids
 * from a synchronous source, all started together: every exchange is settled. Reproduces the shape of the many-types
 * benchmark, whose run once never completed.
 */
@Tag("stress")
class ManyTypesStressTest {
    private static final int TYPES = 20;
    private static final int IDS = 500;
    private static final int PER_TYPE = 50_000;

    @RepeatedTest(20)
    void everyExchangeOfEveryTypeIsSettled() throws InterruptedException {
        AggregateSchedulerSupplier schedulers = AggregateSchedulers.perType("many", 2);
        CountDownLatch settled = new CountDownLatch(TYPES * PER_TYPE);
        List<AggregateDispatcher<Integer>> dispatchers = new ArrayList<>();
        try {
            for (int t = 0; t < TYPES; t++) {
                NamedAggregate type = NamedAggregate.of("many", "type" + t);
                AggregateId[] ids = new AggregateId[IDS];
                for (int i = 0; i < IDS; i++) {
                    ids[i] = AggregateId.of(type, UUID.randomUUID().toString());
                }
                Flux<MessageExchange<Integer>> source =
                        Flux.range(0, PER_TYPE).map(i -> new CountingExchange(ids[i % IDS], i, settled));
                AggregateDispatcher<Integer> dispatcher = AggregateDispatcher.<Integer>builder("Many", type)
                        .source(source)
                        .handler(exchange -> Mono.empty())
                        .schedulers(schedulers)
                        .settings(LaneSettings.DEFAULT.withStrategy(LaneStrategy.KEYED))
                        .build();
                dispatcher.prepare(RuntimeContext.standalone()).block(Duration.ofSeconds(10));
                dispatchers.add(dispatcher);
            }
            dispatchers.forEach(AggregateDispatcher::start);

            boolean done = settled.await(60, TimeUnit.SECONDS);
            assertThat(done)
                    .as(
                            "settled all; left %d; stats %s",
                            settled.getCount(),
                            dispatchers.stream()
                                    .map(d ->
                                            d.stats().queued() + "/" + d.stats().lanes() + "/"
                                                    + d.stats().inFlight())
                                    .collect(Collectors.joining(" ")))
                    .isTrue();
        } finally {
            dispatchers.forEach(AggregateDispatcher::forceStop);
            schedulers.forceStop();
        }
    }

    private static final class CountingExchange implements MessageExchange<Integer> {
        private final AggregateId id;
        private final int sequence;
        private final CountDownLatch settled;

        CountingExchange(AggregateId id, int sequence, CountDownLatch settled) {
            this.id = id;
            this.sequence = sequence;
            this.settled = settled;
        }

        @Override
        public Integer message() {
            return sequence;
        }

        @Override
        public AggregateId aggregateId() {
            return id;
        }

        @Override
        public void acknowledge() {
            settled.countDown();
        }

        @Override
        public void reject(Throwable reason) {
            settled.countDown();
        }
    }
}
