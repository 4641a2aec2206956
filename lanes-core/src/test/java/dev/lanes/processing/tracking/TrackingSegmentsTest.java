package dev.lanes.processing.tracking;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.CheckpointStores;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.deadletter.ForwardingDeadLetterQueue;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import dev.lanes.test.logging.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.core.publisher.Mono;

/** A tracking processor split into segments, on the in-memory stores: sharing, hand-over, settings and refusals. */
class TrackingSegmentsTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    private static final String NAME = "Orders";
    private static final TrackingSettings FOUR = TrackingSettings.DEFAULT
            .withPollInterval(Duration.ofMillis(10))
            .withCheckpointInterval(Duration.ofMillis(10))
            .withLease(Duration.ofMillis(600))
            .withSegments(4);

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    private final EventStore store = EventStores.inMemory();
    private final CheckpointStore checkpoints = CheckpointStores.inMemory();
    private final Map<String, Set<String>> handledBy = new ConcurrentHashMap<>();
    private final List<LanesRuntime> runtimes = new ArrayList<>();

    @AfterEach
    void stop() {
        runtimes.forEach(runtime -> runtime.shutdown().block(WAIT));
    }

    private void append(int aggregates) {
        for (int i = 0; i < aggregates; i++) {
            AggregateId id = AggregateId.of(ORDER, "o-" + i);
            store.append(DomainEventStream.of(CommandMessage.of(id, "Place", "r-" + i), 1, List.of("placed")))
                    .block(WAIT);
        }
    }

    private TrackingProcessor processor(String owner, TrackingSettings settings) {
        EventProcessor processor = EventProcessor.builder(NAME, ProcessorKind.PROJECTION)
                .on(
                        ORDER,
                        String.class,
                        (event, context) -> Mono.fromRunnable(() -> handledBy
                                .computeIfAbsent(context.aggregateId().id(), id -> ConcurrentHashMap.newKeySet())
                                .add(owner)))
                .build();
        return TrackingProcessor.builder(processor, store, checkpoints)
                .settings(settings)
                .owner(owner)
                .build();
    }

    private LanesRuntime start(TrackingProcessor tracking) {
        LanesRuntime runtime = new LanesRuntime(List.of(tracking), Duration.ofSeconds(5), Duration.ofMillis(10));
        runtimes.add(runtime);
        runtime.start().block(WAIT);
        return runtime;
    }

    @Test
    void twoInstancesShareTheSegmentsFairlyAndOneTakesAllOnceTheOtherStops() {
        append(200);
        TrackingProcessor first = processor("first", FOUR);
        TrackingProcessor second = processor("second", FOUR);
        start(first);
        await().atMost(WAIT).until(() -> first.ownedSegments().size() == 4);
        LanesRuntime secondRuntime = start(second);

        await().atMost(WAIT)
                .until(() -> first.ownedSegments().size() == 2
                        && second.ownedSegments().size() == 2);
        assertThat(first.ownedSegments()).doesNotContainAnyElementsOf(second.ownedSegments());
        await().atMost(WAIT).until(() -> handledBy.size() == 200);
        assertThat(handledBy.values())
                .as("each aggregate by one instance")
                .allSatisfy(owners -> assertThat(owners).hasSize(1));

        secondRuntime.shutdown().block(WAIT);
        await().atMost(WAIT).until(() -> first.ownedSegments().size() == 4);
        assertThat(checkpoints.checkpoints(NAME).block(WAIT))
                .allSatisfy(row -> assertThat(row.owner()).isEqualTo("first"));
    }

    @Test
    void eachSegmentReadsOnlyItsAggregates() {
        append(100);
        TrackingProcessor only = processor("only", FOUR);
        start(only);
        await().atMost(WAIT).until(() -> handledBy.size() == 100);

        Map<Integer, Long> perSegment = new ConcurrentHashMap<>();
        IntStream.range(0, 100)
                .forEach(i -> perSegment.merge(
                        Segment.of(AggregateId.of(ORDER, "o-" + i), 4).index(), 1L, Long::sum));
        assertThat(perSegment)
                .as("the hash spreads 100 ids over the 4 segments")
                .hasSize(4);
        assertThat(store.readAll(1, 1_000, Set.of(ORDER.materialize()), new Segment(2, 4))
                        .collectList()
                        .block(WAIT))
                .hasSize(perSegment.get(2).intValue())
                .allSatisfy(positioned -> assertThat(
                                Segment.of(positioned.aggregateId(), 4).index())
                        .isEqualTo(2));
    }

    @Test
    void anotherSegmentCountThanTheRecordedOneStopsTheRuntimeNamingBoth() {
        checkpoints.segments(NAME, 2).block(WAIT);
        TrackingProcessor tracking = processor("one", FOUR);
        LanesRuntime runtime = new LanesRuntime(List.of(tracking), Duration.ofSeconds(5), Duration.ofMillis(10));
        runtimes.add(runtime);

        Throwable failure; // the first tick may run within the start (a synchronous store): then the start fails
        try {
            runtime.start().block(WAIT);
            ShutdownReport report = runtime.terminated().block(WAIT);
            failure = report == null ? null : report.failure();
        } catch (IllegalStateException startFailed) {
            failure = startFailed;
        }

        assertThat(failure)
                .isNotNull()
                .hasMessageContaining("Tracking-" + NAME)
                .hasMessageContaining("2 segment(s)")
                .hasMessageContaining("started with 4");
        assertThat(tracking.isReading()).isFalse();
        assertThat(logs.lines(Level.ERROR))
                .allSatisfy(line -> assertThat(line.message() + line.details()).contains("started with 4"));
    }

    @Test
    void aSegmentCountThatIsNotAPowerOfTwoAndAWholeResetWithSegmentsAreRefusedAtConstruction() {
        assertThatThrownBy(() -> TrackingSettings.DEFAULT.withSegments(3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("segments must be a power of two")
                .hasMessageContaining(": 3");
        assertThatThrownBy(() -> TrackingSettings.DEFAULT.withSegments(2048)).hasMessageContaining(": 2048");
        EventProcessor processor = EventProcessor.builder(NAME, ProcessorKind.PROJECTION)
                .on(ORDER, String.class, (event, context) -> Mono.empty())
                .build();
        assertThatThrownBy(() -> TrackingProcessor.builder(processor, store, checkpoints)
                        .settings(FOUR)
                        .onReset(Mono::empty)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reads 4 segments")
                .hasMessageContaining("onSegmentReset");
    }

    @Test
    void aQueueThatCannotFilterRetryRequestsBySegmentSaysSoInsteadOfTakingAnothersRequests() {
        DeadLetterQueue shared = new ForwardingDeadLetterQueue(DeadLetterQueues.inMemory()) {};
        Set<Segment> half = Set.of(new Segment(1, 2));

        assertThatThrownBy(() -> shared.takeRetryRequests(Set.of(NAME), half).block(WAIT))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("segments [segment 1/2] of processors [Orders]")
                .hasMessageContaining("must override takeRetryRequests(Set, Set)");
        assertThat(shared.takeRetryRequests(Set.of(NAME), Set.of(Segment.ALL)).block(WAIT))
                .as("the whole stream is served by the unfiltered take")
                .isEmpty();
        assertThat(shared.takeRetryRequests(Set.of(NAME), Set.of()).block(WAIT))
                .as("an instance that holds no segment takes nothing")
                .isEmpty();
        assertThatThrownBy(() -> Segment.commonCount(List.of(new Segment(0, 2), new Segment(0, 4))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one count");
    }
}
