package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterSequence;
import dev.lanes.processing.deadletter.ForwardingDeadLetterQueue;
import dev.lanes.processing.tracking.TrackingProcessor;
import dev.lanes.processing.tracking.TrackingSettings;
import dev.lanes.runtime.LanesRuntime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * A retry asked for from outside ({@code lanes parked retry}) of a tracking processor split into segments runs in the
 * lane of the instance that reads the aggregate's segment: another instance's poll leaves the request alone, so the
 * retry is never run beside the owner's reading of the same aggregate.
 */
class SegmentOwnerRetryTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Duration POLL = Duration.ofSeconds(1);
    private static final TrackingSettings TWO_SEGMENTS = TrackingSettings.DEFAULT
            .withPollInterval(Duration.ofMillis(20))
            .withCheckpointInterval(Duration.ofMillis(20))
            .withLease(Duration.ofSeconds(2))
            .withSegments(2);
    private static final LaneSettings NO_RETRY = LaneSettings.DEFAULT.withRetryPolicy(
            RetryPolicy.DEFAULT.withMaxRetries(0).withBackoff(Duration.ZERO, Duration.ZERO));

    private final PostgresEventStore store = TestDatabase.store();
    private final NamedAggregate counter = NamedAggregate.of("owner-retry-" + UUID.randomUUID(), "counter");
    private final String name = "OwnerRetry-" + UUID.randomUUID();
    private final AggregateId poisoned = AggregateId.of(counter, "p");
    private final List<String> handled = Collections.synchronizedList(new ArrayList<>());
    private volatile boolean poison = true;
    private final List<LanesRuntime> runtimes = new ArrayList<>();
    private final List<PostgresDeadLetterQueue> queues = new ArrayList<>();

    @AfterEach
    void stop() {
        runtimes.forEach(runtime -> runtime.shutdown().block(WAIT));
        queues.forEach(PostgresDeadLetterQueue::close);
    }

    @Test
    void onlyTheInstanceReadingTheAggregatesSegmentTakesItsRequestedRetry() {
        Instance first = new Instance("first");
        Instance second = new Instance("second");
        await().atMost(WAIT)
                .until(() -> first.tracking.ownedSegments().size() == 1
                        && second.tracking.ownedSegments().size() == 1);
        int segment = Segment.of(poisoned, 2).index();
        Instance owner = first.tracking.ownedSegments().contains(segment) ? first : second;
        Instance other = owner == first ? second : first;

        append(1, 2, 3);
        await().atMost(WAIT)
                .until(() -> owner.queue.list(name, poisoned).block(WAIT).size() == 2);
        poison = false;
        owner.queue.requestRetry(name, poisoned).block(WAIT); // what `lanes parked retry` does

        other.timer.advanceTimeBy(POLL);
        await().atMost(WAIT).until(() -> !other.taken.isEmpty());
        assertThat(other.taken)
                .as("the instance reading the other segment leaves the request for the owner")
                .containsOnly(List.of());
        assertThat(owner.queue.list(name, poisoned).block(WAIT)).hasSize(2);

        owner.timer.advanceTimeBy(POLL);
        await().atMost(WAIT).until(() -> handled.size() == 3);
        assertThat(handled).containsExactly(owner.name + ":1", owner.name + ":2", owner.name + ":3");
        assertThat(owner.queue.list(name, poisoned).block(WAIT)).isEmpty();
    }

    private void append(int... versions) {
        for (int version : versions) {
            store.append(DomainEventStream.of(
                            CommandMessage.of(poisoned, new Deposit(1, "")), version, List.of(new Deposited(1, ""))))
                    .block(WAIT);
        }
    }

    /** One running instance of the processor, with its own queue over the database and its own retry-poll clock. */
    private final class Instance {
        final String name;
        final PostgresDeadLetterQueue queue = PostgresDeadLetterQueue.open(store.dataSource());
        final VirtualTimeScheduler timer = VirtualTimeScheduler.create();
        final List<List<DeadLetterSequence>> taken = new CopyOnWriteArrayList<>();
        final TrackingProcessor tracking;

        Instance(String owner) {
            this.name = owner;
            queues.add(queue);
            EventProcessor processor = EventProcessor.builder(SegmentOwnerRetryTest.this.name, ProcessorKind.PROJECTION)
                    .on(
                            counter,
                            Deposited.class,
                            (event, context) -> Mono.fromRunnable(() -> {
                                if (poison && context.version() == 2) {
                                    throw new IllegalStateException("poison: " + context.aggregateId() + " v2");
                                }
                                handled.add(owner + ":" + context.version());
                            }))
                    .build();
            tracking = TrackingProcessor.builder(processor, store, store.checkpointStore())
                    .settings(TWO_SEGMENTS)
                    .laneSettings(NO_RETRY)
                    .owner(owner)
                    .deadLetterQueue(new Recording(queue, taken))
                    .retryRequestPolling(POLL, timer)
                    .build();
            LanesRuntime runtime = new LanesRuntime(List.of(tracking), WAIT, Duration.ofMillis(20));
            runtimes.add(runtime);
            runtime.start().block(WAIT);
        }
    }

    /** Forwards to the instance's queue (also the segmented take and the reload) and keeps what each poll took. */
    private static final class Recording extends ForwardingDeadLetterQueue {
        private final List<List<DeadLetterSequence>> taken;

        Recording(DeadLetterQueue queue, List<List<DeadLetterSequence>> taken) {
            super(queue);
            this.taken = taken;
        }

        @Override
        public Mono<List<DeadLetterSequence>> takeRetryRequests(Set<String> processors, Set<Segment> segments) {
            return queue.takeRetryRequests(processors, segments).doOnNext(taken::add);
        }

        @Override
        public void reload() {
            queue.reload();
        }
    }
}
