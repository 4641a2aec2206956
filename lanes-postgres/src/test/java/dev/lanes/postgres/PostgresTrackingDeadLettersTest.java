package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.PositionedStream;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.processing.tracking.TrackingProcessor;
import dev.lanes.processing.tracking.TrackingSettings;
import dev.lanes.runtime.LanesRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A tracking processor on PostgreSQL (event store, checkpoint store, dead-letter queue) parks a poison event and holds
 * its aggregate's later versions; a restart (a new processor and a newly opened queue over the same database) still
 * holds them, and a retry asked for from outside, as {@code lanes parked retry} does, delivers them in order.
 */
class PostgresTrackingDeadLettersTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final TrackingSettings FAST = TrackingSettings.DEFAULT
            .withPollInterval(Duration.ofMillis(20))
            .withCheckpointInterval(Duration.ofMillis(20));
    private static final LaneSettings ONE_RETRY = LaneSettings.DEFAULT.withRetryPolicy(
            RetryPolicy.DEFAULT.withMaxRetries(1).withBackoff(Duration.ZERO, Duration.ZERO));

    private final PostgresEventStore store = TestDatabase.store();
    private final CheckpointStore checkpoints = store.checkpointStore();
    // a type and a processor of this test's own: the rest of the shared database is passed over
    private final NamedAggregate counter = NamedAggregate.of("dead-" + UUID.randomUUID(), "counter");
    private final String name = "Counters-" + UUID.randomUUID();
    private final AggregateId poisonedCounter = AggregateId.of(counter, "a");
    private final AggregateId healthyCounter = AggregateId.of(counter, "b");
    private final Map<AggregateId, Integer> versions = new ConcurrentHashMap<>();
    private final Map<AggregateId, List<Integer>> handled = new ConcurrentHashMap<>();
    private volatile boolean poisoned = true;

    private final List<LanesRuntime> runtimes = new ArrayList<>();
    private final List<PostgresDeadLetterQueue> queues = new ArrayList<>();

    @AfterEach
    void stop() {
        runtimes.forEach(runtime -> runtime.shutdown().block(WAIT));
        queues.forEach(PostgresDeadLetterQueue::close);
    }

    private PostgresDeadLetterQueue openQueue() {
        PostgresDeadLetterQueue queue = PostgresDeadLetterQueue.open(store.dataSource());
        queues.add(queue);
        return queue;
    }

    private List<Integer> handled(AggregateId id) {
        return handled.computeIfAbsent(id, key -> Collections.synchronizedList(new ArrayList<>()));
    }

    private LanesRuntime start(PostgresDeadLetterQueue queue, String owner, TrackingProcessor[] started) {
        EventProcessor processor = EventProcessor.builder(name, ProcessorKind.PROJECTION)
                .on(
                        counter,
                        Deposited.class,
                        (event, context) -> Mono.fromRunnable(() -> {
                            if (poisoned && context.aggregateId().equals(poisonedCounter) && context.version() == 2) {
                                throw new IllegalStateException("poison: " + context.aggregateId() + " v2");
                            }
                            handled(context.aggregateId()).add(context.version());
                        }))
                .build();
        TrackingProcessor tracking = TrackingProcessor.builder(processor, store, checkpoints)
                .settings(FAST)
                .laneSettings(ONE_RETRY)
                .owner(owner)
                .deadLetterQueue(queue)
                .retryRequestPolling(Duration.ofMillis(20), Schedulers.parallel())
                .onReset(() -> Mono.fromRunnable(handled::clear))
                .build();
        started[0] = tracking;
        LanesRuntime runtime = new LanesRuntime(List.of(tracking), Duration.ofSeconds(30), Duration.ofMillis(20));
        runtimes.add(runtime);
        runtime.start().block(WAIT);
        return runtime;
    }

    private void append(AggregateId... ids) {
        for (AggregateId id : ids) {
            int version = versions.merge(id, 1, Integer::sum);
            store.append(DomainEventStream.of(
                            CommandMessage.of(id, new Deposit(1, "")), version, List.of(new Deposited(1, ""))))
                    .block(WAIT);
        }
    }

    /** This test's streams in the store's order: the versions per aggregate a replay hands a projection. */
    private Map<AggregateId, List<Integer>> replay() {
        Map<AggregateId, List<Integer>> replayed = new ConcurrentHashMap<>();
        List<PositionedStream> all = store.readAll(0, 10_000, Set.of(poisonedCounter.materialize()))
                .collectList()
                .block(WAIT);
        all.forEach(positioned -> replayed.computeIfAbsent(positioned.aggregateId(), id -> new ArrayList<>())
                .add(positioned.version()));
        return replayed;
    }

    private long lastPosition() {
        List<PositionedStream> all = store.readAll(0, 10_000, Set.of(poisonedCounter.materialize()))
                .collectList()
                .block(WAIT);
        return all.get(all.size() - 1).position();
    }

    private List<Integer> awaitParked(PostgresDeadLetterQueue queue, int letters) {
        await().atMost(WAIT)
                .until(() -> queue.list(name, poisonedCounter).block(WAIT).size() == letters);
        return queue.list(name, poisonedCounter).block(WAIT).stream()
                .map(letter -> letter.stream().version())
                .toList();
    }

    @Test
    void aRestartedProcessorStillHoldsTheParkedAggregateAndARequestedRetryDeliversItInOrder() {
        append(poisonedCounter, healthyCounter, poisonedCounter, healthyCounter, poisonedCounter, healthyCounter);
        TrackingProcessor[] first = new TrackingProcessor[1];
        LanesRuntime before = start(openQueue(), "first", first);
        await().atMost(WAIT).until(() -> handled(healthyCounter).size() == 3);
        PostgresDeadLetterQueue beforeQueue = queues.get(0);
        assertThat(awaitParked(beforeQueue, 2)).containsExactly(2, 3);
        long settled = lastPosition();
        await().atMost(WAIT).until(() -> first[0].savedCheckpoint() == settled);
        assertThat(handled(poisonedCounter)).containsExactly(1);
        before.shutdown().block(WAIT);

        append(poisonedCounter, healthyCounter); // read after the restart, past the saved checkpoint
        PostgresDeadLetterQueue afterQueue = openQueue(); // a new process: the parked set comes from the table
        TrackingProcessor[] second = new TrackingProcessor[1];
        start(afterQueue, "second", second);
        await().atMost(WAIT).until(() -> handled(healthyCounter).size() == 4);
        assertThat(awaitParked(afterQueue, 3))
                .as("version 4, read after the restart, is parked behind the head")
                .containsExactly(2, 3, 4);
        await().atMost(WAIT).until(() -> second[0].savedCheckpoint() == lastPosition());
        assertThat(handled(poisonedCounter)).containsExactly(1);
        List<DeadLetter> letters = afterQueue.list(name, poisonedCounter).block(WAIT);
        assertThat(letters.get(0).reason()).contains("poison: " + poisonedCounter + " v2");

        poisoned = false;
        afterQueue.requestRetry(name, poisonedCounter).block(WAIT); // what `lanes parked retry` does
        await().atMost(WAIT).until(() -> handled(poisonedCounter).size() == 4);
        assertThat(handled(poisonedCounter)).containsExactly(1, 2, 3, 4);
        assertThat(afterQueue.list(name, poisonedCounter).block(WAIT)).isEmpty();

        append(poisonedCounter);
        await().atMost(WAIT).until(() -> handled(poisonedCounter).size() == 5);
        assertThat(handled).as("the read model equals a replay of the store").isEqualTo(replay());
    }

    @Test
    void aStandbyThatTakesOverReloadsTheQueueAndHoldsTheAggregateTheFirstInstanceParked() {
        PostgresDeadLetterQueue firstQueue = openQueue();
        PostgresDeadLetterQueue secondQueue = openQueue(); // opened before anything was parked: it knows nothing yet
        TrackingProcessor[] first = new TrackingProcessor[1];
        TrackingProcessor[] second = new TrackingProcessor[1];
        LanesRuntime firstRuntime = start(firstQueue, "first", first);
        await().atMost(WAIT).until(first[0]::isReading);
        start(secondQueue, "second", second);
        append(poisonedCounter, poisonedCounter, healthyCounter, poisonedCounter);
        assertThat(awaitParked(firstQueue, 2)).containsExactly(2, 3);
        long settled = lastPosition();
        await().atMost(WAIT).until(() -> first[0].savedCheckpoint() == settled);
        assertThat(second[0].isReading())
                .as("a standby while the first holds the claim")
                .isFalse();

        firstRuntime.shutdown().block(WAIT);
        await().atMost(WAIT).until(second[0]::isReading);
        append(poisonedCounter, healthyCounter);

        await().atMost(WAIT).until(() -> handled(healthyCounter).size() == 2);
        assertThat(awaitParked(secondQueue, 3))
                .as("version 4 is parked behind the head the first instance parked")
                .containsExactly(2, 3, 4);
        assertThat(handled(poisonedCounter)).containsExactly(1);
    }

    @Test
    void aResetDiscardsTheProcessorsLettersInTheTableAndTheRebuildParksThePoisonAgainOnce() {
        append(poisonedCounter, healthyCounter, poisonedCounter, poisonedCounter, healthyCounter);
        PostgresDeadLetterQueue queue = openQueue();
        TrackingProcessor[] tracking = new TrackingProcessor[1];
        start(queue, "only", tracking);
        assertThat(awaitParked(queue, 2)).containsExactly(2, 3);
        long last = lastPosition();
        await().atMost(WAIT).until(() -> tracking[0].savedCheckpoint() == last);

        tracking[0].reset().block(WAIT);

        await().atMost(WAIT).until(() -> handled(healthyCounter).size() == 2);
        await().atMost(WAIT).until(() -> tracking[0].savedCheckpoint() == last);
        assertThat(awaitParked(queue, 2)).as("parked again, each version once").containsExactly(2, 3);
        assertThat(handled(poisonedCounter)).containsExactly(1);

        poisoned = false;
        assertThat(tracking[0]
                        .deadLetters()
                        .retry(name, poisonedCounter)
                        .block(WAIT)
                        .delivered())
                .isEqualTo(2);
        assertThat(handled).isEqualTo(replay());
    }
}
