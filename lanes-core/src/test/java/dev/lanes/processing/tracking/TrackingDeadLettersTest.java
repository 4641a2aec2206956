package dev.lanes.processing.tracking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.CheckpointStores;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.eventsourcing.PositionedStream;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.deadletter.DeadLetterSequence;
import dev.lanes.processing.deadletter.DeadLetterSequencer;
import dev.lanes.processing.deadletter.ForwardingDeadLetterQueue;
import dev.lanes.processing.deadletter.RetryOutcome;
import dev.lanes.runtime.LanesRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * A tracking processor parks through the sequenced dead-letter queue, as the bus-fed processors do: a stream whose
 * retries run out becomes the head of its aggregate's sequence, the aggregate's later versions are parked behind it
 * (not handled out of order) while other aggregates flow, the checkpoint passes the head only once the queue holds it,
 * a retry after the fix delivers the sequence in order, and a reset discards the processor's letters so that the
 * rebuild parks the poison event again, once.
 */
class TrackingDeadLettersTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    private static final String NAME = "Orders";
    private static final TrackingSettings FAST = TrackingSettings.DEFAULT
            .withPollInterval(Duration.ofMillis(10))
            .withCheckpointInterval(Duration.ofMillis(10));
    /** One retry, at once: the second failure parks. */
    private static final LaneSettings ONE_RETRY = LaneSettings.DEFAULT.withRetryPolicy(
            RetryPolicy.DEFAULT.withMaxRetries(1).withBackoff(Duration.ZERO, Duration.ZERO));

    private final EventStore store = EventStores.inMemory();
    private final CheckpointStore checkpoints = CheckpointStores.inMemory();
    private final AggregateId poisonedOrder = AggregateId.of(ORDER, "a");
    private final AggregateId healthyOrder = AggregateId.of(ORDER, "b");
    private final Map<AggregateId, Integer> versions = new ConcurrentHashMap<>();
    /** Versions handled per aggregate, in the order handled; cleared by the reset. */
    private final Map<AggregateId, List<Integer>> handled = new ConcurrentHashMap<>();
    /** While set, version 2 of {@link #poisonedOrder} fails. The "fix" clears it. */
    private final AtomicBoolean poisoned = new AtomicBoolean(true);

    /** What the reset's {@code onReset} waits for before it clears the read model. */
    private volatile Mono<Void> resetHeld = Mono.empty();

    private final List<LanesRuntime> runtimes = new ArrayList<>();

    @AfterEach
    void stop() {
        runtimes.forEach(runtime -> runtime.shutdown().block(WAIT));
    }

    private EventProcessor projection() {
        return EventProcessor.builder(NAME, ProcessorKind.PROJECTION)
                .on(
                        ORDER,
                        String.class,
                        (event, context) -> Mono.fromRunnable(() -> {
                            if (poisoned.get()
                                    && context.aggregateId().equals(poisonedOrder)
                                    && context.version() == 2) {
                                throw new IllegalStateException("poison: " + event);
                            }
                            handled(context.aggregateId()).add(context.version());
                        }))
                .build();
    }

    private List<Integer> handled(AggregateId id) {
        return handled.computeIfAbsent(id, key -> Collections.synchronizedList(new ArrayList<>()));
    }

    private TrackingProcessor start(DeadLetterQueue queue) {
        TrackingProcessor tracking = TrackingProcessor.builder(projection(), store, checkpoints)
                .settings(FAST)
                .laneSettings(ONE_RETRY)
                .deadLetterQueue(queue)
                .retryRequestPolling(Duration.ofMillis(10), Schedulers.parallel())
                .onReset(() -> resetHeld.then(Mono.fromRunnable(handled::clear)))
                .build();
        LanesRuntime runtime = new LanesRuntime(List.of(tracking), Duration.ofSeconds(5), Duration.ofMillis(10));
        runtimes.add(runtime);
        runtime.start().block(WAIT);
        return tracking;
    }

    /** Appends the next version of each aggregate, in this order; returns the position of the last. */
    private long append(AggregateId... ids) {
        for (AggregateId id : ids) {
            int version = versions.merge(id, 1, Integer::sum);
            store.append(DomainEventStream.of(
                            CommandMessage.of(id, "Touch", id.id() + "-" + version),
                            version,
                            List.of(id.id() + " v" + version)))
                    .block(WAIT);
        }
        return lastPosition();
    }

    private long lastPosition() {
        List<PositionedStream> all = store.readAll(0, 10_000).collectList().block(WAIT);
        return all.isEmpty() ? 0 : all.get(all.size() - 1).position();
    }

    private static List<Integer> versionsOf(List<DeadLetter> letters) {
        return letters.stream().map(letter -> letter.stream().version()).toList();
    }

    private static List<DeadLetter> awaitParked(DeadLetterQueue queue, AggregateId id, int letters) {
        await().atMost(WAIT).until(() -> queue.list(NAME, id).block(WAIT).size() == letters);
        return queue.list(NAME, id).block(WAIT);
    }

    @Test
    void aPoisonEventHoldsItsAggregatesLaterVersionsWhileOthersFlowAndARetryAfterTheFixDeliversThemInOrder() {
        DeadLetterQueue queue = DeadLetterQueues.inMemory();
        long last = append(
                poisonedOrder, healthyOrder, poisonedOrder, healthyOrder, poisonedOrder, healthyOrder, poisonedOrder);
        TrackingProcessor tracking = start(queue);

        await().atMost(WAIT).until(() -> handled(healthyOrder).size() == 3);
        List<DeadLetter> letters = awaitParked(queue, poisonedOrder, 3);
        await().atMost(WAIT).until(() -> tracking.savedCheckpoint() == last);

        assertThat(handled(healthyOrder)).containsExactly(1, 2, 3);
        assertThat(handled(poisonedOrder))
                .as("versions 3 and 4 are parked behind the head, not handled out of order")
                .containsExactly(1);
        assertThat(versionsOf(letters)).containsExactly(2, 3, 4);
        assertThat(letters.get(0).attempts()).isEqualTo(2);
        assertThat(letters.get(0).reason()).contains("poison: a v2");
        assertThat(letters.get(1).reason()).isEqualTo(DeadLetterSequencer.BEHIND_HEAD);
        assertThat(tracking.deadLetters().sequences().block(WAIT))
                .containsExactly(new DeadLetterSequence(NAME, poisonedOrder, 3));

        append(poisonedOrder); // followed live: parked behind the head too
        awaitParked(queue, poisonedOrder, 4);
        assertThat(handled(poisonedOrder)).containsExactly(1);

        poisoned.set(false);
        RetryOutcome outcome = tracking.deadLetters().retry(NAME, poisonedOrder).block(WAIT);

        assertThat(outcome).isEqualTo(new RetryOutcome(NAME, poisonedOrder, 4, 0, 0, null));
        assertThat(handled(poisonedOrder)).containsExactly(1, 2, 3, 4, 5);
        assertThat(queue.isParked(NAME, poisonedOrder)).isFalse();
        append(poisonedOrder);
        await().atMost(WAIT).until(() -> handled(poisonedOrder).size() == 6);
        assertThat(handled(poisonedOrder)).containsExactly(1, 2, 3, 4, 5, 6);
    }

    @Test
    void aParkingTheQueueCannotStoreKeepsItsPositionUnsettledAndItsAggregateHeldUntilStored() {
        FailingStores queue = new FailingStores(DeadLetterQueues.inMemory());
        long beforeHead = append(poisonedOrder);
        long last = append(poisonedOrder, healthyOrder, poisonedOrder, healthyOrder);
        TrackingProcessor tracking = start(queue);

        await().atMost(WAIT).until(() -> handled(healthyOrder).size() == 2);
        await().atMost(WAIT).until(() -> tracking.savedCheckpoint() == beforeHead);
        int failedSoFar = queue.enqueues.get();
        await().atMost(WAIT).until(() -> queue.enqueues.get() >= failedSoFar + 3); // tried again, poll after poll

        assertThat(tracking.savedCheckpoint())
                .as("the checkpoint stays below the head the queue has not stored")
                .isEqualTo(beforeHead);
        assertThat(handled(poisonedOrder))
                .as("the aggregate's later version waits behind the parking")
                .containsExactly(1);

        queue.failing.set(false);
        List<DeadLetter> letters = awaitParked(queue, poisonedOrder, 2);
        await().atMost(WAIT).until(() -> tracking.savedCheckpoint() == last);
        assertThat(versionsOf(letters)).containsExactly(2, 3);
        assertThat(handled(poisonedOrder)).containsExactly(1);
    }

    @Test
    void aResetDiscardsTheProcessorsLettersAndTheRebuildParksThePoisonAgainOnceAndHoldsTheLaterVersions() {
        DeadLetterQueue queue = DeadLetterQueues.inMemory();
        DomainEventStream othersLetter =
                DomainEventStream.of(CommandMessage.of(healthyOrder, "Touch", "other-1"), 1, List.of("other"));
        queue.enqueue("Other", othersLetter, "another processor's", 1).block(WAIT);
        long last = append(poisonedOrder, healthyOrder, poisonedOrder, poisonedOrder, healthyOrder, poisonedOrder);
        TrackingProcessor tracking = start(queue);
        awaitParked(queue, poisonedOrder, 3);
        await().atMost(WAIT).until(() -> tracking.savedCheckpoint() == last);

        tracking.reset().block(WAIT);

        await().atMost(WAIT).until(() -> handled(healthyOrder).size() == 2);
        List<DeadLetter> letters = awaitParked(queue, poisonedOrder, 3);
        await().atMost(WAIT).until(() -> tracking.savedCheckpoint() == last);
        assertThat(versionsOf(queue.list(NAME, poisonedOrder).block(WAIT)))
                .as("parked again by the rebuild, each version once")
                .containsExactly(2, 3, 4);
        assertThat(letters.get(0).attempts()).isEqualTo(2);
        assertThat(handled(poisonedOrder)).containsExactly(1);
        assertThat(queue.sequences().block(WAIT))
                .as("another processor's letters are not the reset's")
                .containsExactly(
                        new DeadLetterSequence(NAME, poisonedOrder, 3),
                        new DeadLetterSequence("Other", healthyOrder, 1));

        poisoned.set(false);
        assertThat(tracking.deadLetters().retry(NAME, poisonedOrder).block(WAIT).delivered())
                .isEqualTo(3);
        assertThat(handled(poisonedOrder)).containsExactly(1, 2, 3, 4);
    }

    @Test
    void aRetryAskedForWhileAResetIsUnderWayIsRefusedAndTheResetStillDiscardsTheSequence() {
        DeadLetterQueue queue = DeadLetterQueues.inMemory();
        append(poisonedOrder, poisonedOrder, poisonedOrder);
        TrackingProcessor tracking = start(queue);
        awaitParked(queue, poisonedOrder, 2);
        Sinks.Empty<Void> clearing = Sinks.empty();
        AtomicBoolean resetRan = new AtomicBoolean();
        resetHeld = Mono.fromRunnable(() -> resetRan.set(true)).then(clearing.asMono());
        Mono<Void> reset = tracking.reset().cache();
        reset.subscribe();
        await().atMost(WAIT).untilTrue(resetRan); // onReset is running: held until cleared

        assertThatThrownBy(
                        () -> tracking.deadLetters().retry(NAME, poisonedOrder).block(WAIT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Tracking-" + NAME + " is resetting")
                .hasMessageContaining("RETRY of " + poisonedOrder);
        assertThat(queue.list(NAME, poisonedOrder).block(WAIT)).hasSize(2);

        clearing.tryEmitEmpty();
        reset.block(WAIT);
        List<DeadLetter> letters = awaitParked(queue, poisonedOrder, 2);
        assertThat(versionsOf(letters)).containsExactly(2, 3);
        assertThat(handled(poisonedOrder)).containsExactly(1);
    }

    @Test
    void theDefaultDiscardOfAQueueWithoutOneOfItsOwnEvictsEveryLetterOfThatProcessorOnly() {
        FailingStores queue = new FailingStores(DeadLetterQueues.inMemory());
        queue.failing.set(false);
        for (AggregateId id : List.of(poisonedOrder, poisonedOrder, healthyOrder)) {
            DomainEventStream stream = DomainEventStream.of(CommandMessage.of(id, "Touch", "r"), 1, List.of(id.id()));
            queue.enqueue(NAME, stream, "parked", 1).block(WAIT);
            queue.enqueue("Other", stream, "parked", 1).block(WAIT);
        }

        assertThat(queue.discard(NAME).block(WAIT)).isEqualTo(3);

        assertThat(queue.isParked(NAME, poisonedOrder)).isFalse();
        assertThat(queue.isParked(NAME, healthyOrder)).isFalse();
        assertThat(queue.sequences().block(WAIT))
                .containsExactly(
                        new DeadLetterSequence("Other", poisonedOrder, 2),
                        new DeadLetterSequence("Other", healthyOrder, 1));
    }

    @Test
    void aRetryOfAnotherProcessorOrTypeIsRefusedNamingWhatTheProcessorHas() {
        TrackingProcessor tracking = start(DeadLetterQueues.inMemory());

        assertThatThrownBy(() ->
                        tracking.deadLetters().retry("Missing", poisonedOrder).block(WAIT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Tracking-" + NAME)
                .hasMessageContaining("'Missing'");
        assertThatThrownBy(() -> tracking.deadLetters()
                        .skip(NAME, AggregateId.of(NamedAggregate.of("shop", "cart"), "c"))
                        .block(WAIT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reads no streams of shop.cart");
    }

    /** The in-memory queue, whose parkings fail while {@link #failing} is set; counts the parkings tried. */
    private static final class FailingStores extends ForwardingDeadLetterQueue {
        final AtomicBoolean failing = new AtomicBoolean(true);
        final AtomicInteger enqueues = new AtomicInteger();

        FailingStores(DeadLetterQueue queue) {
            super(queue);
        }

        @Override
        public Mono<DeadLetter> enqueue(String processor, DomainEventStream stream, String reason, int attempts) {
            return Mono.defer(() -> {
                enqueues.incrementAndGet();
                return failing.get()
                        ? Mono.error(new IllegalStateException("the queue is down"))
                        : queue.enqueue(processor, stream, reason, attempts);
            });
        }
    }
}
