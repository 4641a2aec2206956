package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.Segment;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Three instances (three runtimes in this JVM) on one PostgreSQL rebuild a projection split into 8 segments: they share
 * the segments, every stream is handled, each aggregate's versions are applied in order, and the result equals a
 * replay. One instance is stopped abruptly in the middle, with streams held in its handlers: its segments are taken
 * over once their leases expire, and nothing is lost.
 */
class SegmentedRebuildTest {
    private static final Duration WAIT = Duration.ofMinutes(15); // the 300k stress run appends for minutes
    private static final int SEGMENTS = 8;
    private static final TrackingSettings SETTINGS = TrackingSettings.DEFAULT
            .withPollInterval(Duration.ofMillis(20))
            .withCheckpointInterval(Duration.ofMillis(50))
            .withLease(Duration.ofSeconds(2))
            .withSegments(SEGMENTS);

    private final PostgresEventStore store = TestDatabase.store();
    private final CheckpointStore checkpoints = store.checkpointStore();
    private final NamedAggregate counter = NamedAggregate.of("segments-" + UUID.randomUUID(), "counter");
    private final String name = "Counters-" + UUID.randomUUID();

    /** The projection, shared by the instances: per aggregate the last version applied. */
    private final Map<String, Integer> applied = new ConcurrentHashMap<>();

    private final List<String> outOfOrder = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Set<String>> handledBy = new ConcurrentHashMap<>();
    private final AtomicInteger handledByFirst = new AtomicInteger();

    /** What the first instance's held handlers wait for: emitted after the test, so none times out in later tests. */
    private final Sinks.Empty<Void> release = Sinks.empty();

    @AfterEach
    void releaseTheHeldHandlers() {
        release.tryEmitEmpty();
    }

    @Test
    void threeInstancesShareEightSegmentsAndTakeOverFromOneStoppedAbruptly() {
        rebuild(300, 10); // 3,000 streams
    }

    @Test
    @Tag("stress")
    void threeInstancesRebuild300kStreams() {
        rebuild(30_000, 10); // 300,000 streams
    }

    private void rebuild(int aggregates, int versions) {
        append(aggregates, versions);
        int total = aggregates * versions;
        TrackingProcessor first = instance("first", 100);
        TrackingProcessor second = instance("second", Integer.MAX_VALUE);
        TrackingProcessor third = instance("third", Integer.MAX_VALUE);
        LanesRuntime firstRuntime = runtime(first);
        LanesRuntime secondRuntime = runtime(second);
        LanesRuntime thirdRuntime = runtime(third);
        long started = System.nanoTime();
        // The premise, not a race: the first counts three instances alive from its first tick, so it claims its fair
        // share (3 of 8) and no more. Started alone it could claim all 8, hold streams in every one, and give the
        // others nothing until each held stream timed out (30 s apiece).
        checkpoints.heartbeat(name, "second", SETTINGS.lease()).block(WAIT);
        checkpoints.heartbeat(name, "third", SETTINGS.lease()).block(WAIT);
        firstRuntime.start().block(WAIT);
        secondRuntime.start().block(WAIT);
        thirdRuntime.start().block(WAIT);
        await().atMost(WAIT).until(() -> handledByFirst.get() >= 100);
        await().atMost(WAIT)
                .until(() -> !second.ownedSegments().isEmpty()
                        && !third.ownedSegments().isEmpty());
        List<Integer> firstOwned = first.ownedSegments();
        assertThat(firstOwned)
                .as("the first holds segments with streams held in its handlers, its fair share at most")
                .isNotEmpty()
                .hasSizeLessThanOrEqualTo((SEGMENTS + 2) / 3);

        firstRuntime.forceStop(); // no release, no last save: its claims expire after the lease

        await().atMost(WAIT)
                .until(() ->
                        applied.values().stream().mapToInt(Integer::intValue).sum() == total);
        double seconds = (System.nanoTime() - started) / 1e9;
        assertThat(outOfOrder).as("versions applied after a gap").isEmpty();
        assertThat(applied)
                .hasSize(aggregates)
                .allSatisfy((id, version) -> assertThat(version).as(id).isEqualTo(versions));
        assertThat(second.ownedSegments().size() + third.ownedSegments().size())
                .as("the second and third took over every segment")
                .isEqualTo(SEGMENTS);
        for (int segment : firstOwned) {
            assertThat(handledBy.get("segment " + segment))
                    .as("segment " + segment + " taken over")
                    .containsAnyOf("second", "third");
        }
        secondRuntime.shutdown().block(WAIT);
        thirdRuntime.shutdown().block(WAIT);
        System.out.printf("rebuilt %,d streams with 3 instances (one stopped abruptly) in %.1f s%n", total, seconds);
    }

    private void append(int aggregates, int versions) {
        Flux.range(0, aggregates)
                .flatMap(
                        aggregate ->
                                Flux.range(1, versions).concatMap(version -> store.append(stream(aggregate, version))),
                        32)
                .blockLast(WAIT);
    }

    private DomainEventStream stream(int aggregate, int version) {
        AggregateId id = AggregateId.of(counter, "c-" + aggregate);
        return DomainEventStream.of(CommandMessage.of(id, new Deposit(1, "")), version, List.of(new Deposited(1, "")));
    }

    /** Applies a version if it is the next one; one at or below the last applied is a redelivery (at least once). */
    private void apply(String aggregate, int version) {
        applied.compute(aggregate, (id, last) -> {
            int before = last == null ? 0 : last;
            if (version > before + 1) {
                outOfOrder.add(aggregate + " v" + version + " after v" + before);
            }
            return version == before + 1 ? version : before;
        });
    }

    /** An instance whose handlers hold every stream after the first {@code handled} (until the test ends). */
    private TrackingProcessor instance(String owner, int handled) {
        AtomicInteger count = owner.equals("first") ? handledByFirst : new AtomicInteger();
        EventProcessor processor = EventProcessor.builder(name, ProcessorKind.PROJECTION)
                .on(counter, Deposited.class, (event, context) -> {
                    if (count.incrementAndGet() > handled) {
                        return release.asMono();
                    }
                    return Mono.fromRunnable(() -> {
                        AggregateId id = context.aggregateId();
                        apply(id.id(), context.version());
                        handledBy
                                .computeIfAbsent(
                                        "segment " + Segment.of(id, SEGMENTS).index(),
                                        key -> ConcurrentHashMap.newKeySet())
                                .add(owner);
                    });
                })
                .build();
        return TrackingProcessor.builder(processor, store, checkpoints)
                .settings(SETTINGS)
                .owner(owner)
                .build();
    }

    private static LanesRuntime runtime(TrackingProcessor tracking) {
        return new LanesRuntime(List.of(tracking), Duration.ofSeconds(30), Duration.ofMillis(50));
    }
}
