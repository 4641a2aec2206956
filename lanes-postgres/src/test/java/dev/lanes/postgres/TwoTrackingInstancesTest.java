package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.tracking.TrackingProcessor;
import dev.lanes.processing.tracking.TrackingSettings;
import dev.lanes.runtime.LanesRuntime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Two instances run the same tracking processor on one PostgreSQL: one holds the claim and handles every stream, the
 * other waits; when the first stops, the second takes over from the saved checkpoint. No stream is handled twice.
 */
class TwoTrackingInstancesTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final TrackingSettings FAST = TrackingSettings.DEFAULT
            .withPollInterval(Duration.ofMillis(20))
            .withCheckpointInterval(Duration.ofMillis(50))
            .withLease(Duration.ofSeconds(60)); // a stop releases the claim: only a stalled first could lose it

    private final PostgresEventStore store = TestDatabase.store();
    private final CheckpointStore checkpoints = store.checkpointStore();
    // a type of this test's own: the rest of the shared database is read and passed over
    private final NamedAggregate counter = NamedAggregate.of("tracking-" + UUID.randomUUID(), "counter");
    private final String name = "Counters-" + UUID.randomUUID();
    private final Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
    private final Map<String, String> handledBy = new ConcurrentHashMap<>();
    private final int[] versions = new int[20];

    private void append(int count) {
        Flux.range(0, count)
                .map(i -> i % versions.length)
                .concatMap(account -> store.append(stream(account)))
                .blockLast(WAIT);
    }

    private DomainEventStream stream(int account) {
        AggregateId id = AggregateId.of(counter, "c-" + account);
        return DomainEventStream.of(
                CommandMessage.of(id, new Deposit(1, "")), ++versions[account], List.of(new Deposited(1, "")));
    }

    private TrackingProcessor instance(String owner) {
        EventProcessor processor = EventProcessor.builder(name, ProcessorKind.PROJECTION)
                .on(
                        counter,
                        Deposited.class,
                        (event, context) -> Mono.fromRunnable(() -> {
                            String key = context.aggregateId().id() + " v" + context.version();
                            handled.computeIfAbsent(key, k -> new AtomicInteger())
                                    .incrementAndGet();
                            handledBy.put(key, owner);
                        }))
                .build();
        return TrackingProcessor.builder(processor, store, checkpoints)
                .settings(FAST)
                .owner(owner)
                .build();
    }

    private static LanesRuntime runtime(TrackingProcessor tracking) {
        return new LanesRuntime(List.of(tracking), Duration.ofSeconds(30), Duration.ofMillis(50));
    }

    private long total() {
        return handled.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    @Test
    void oneInstanceHandlesEveryStreamOnceAndTheOtherTakesOverWhenItStops() {
        append(1_000);
        TrackingProcessor first = instance("first");
        TrackingProcessor second = instance("second");
        LanesRuntime firstRuntime = runtime(first);
        LanesRuntime secondRuntime = runtime(second);
        firstRuntime.start().block(WAIT);
        await().atMost(WAIT).until(first::isReading);
        secondRuntime.start().block(WAIT);

        append(500);
        await().atMost(WAIT).until(() -> handled.size() == 1_500);
        assertThat(second.isReading())
                .as("the second waits while the first holds the claim")
                .isFalse();
        assertThat(handledBy.values()).containsOnly("first");

        firstRuntime.shutdown().block(WAIT);
        await().atMost(WAIT).until(second::isReading);
        append(500);
        await().atMost(WAIT).until(() -> handled.size() == 2_000);
        secondRuntime.shutdown().block(WAIT);

        assertThat(total()).as("handlings of 2,000 streams").isEqualTo(2_000);
        assertThat(handled.values()).allSatisfy(times -> assertThat(times.get()).isOne());
        assertThat(handledBy.values().stream().filter("second"::equals).count())
                .as("streams handled by the second after the take-over")
                .isEqualTo(500);
    }
}
