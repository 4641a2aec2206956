package dev.lanes.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.CheckpointStores;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.tracking.TrackingOperations;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The tracking gauges per processor and segment: checkpoint, head and lag, from the figures of the last refresh. */
class TrackingMetersTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");

    private final EventStore store = EventStores.inMemory();
    private final CheckpointStore checkpoints = CheckpointStores.inMemory();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void eachSegmentHasItsCheckpointHeadAndLagTaggedByProcessorAndSegmentOnly() {
        checkpoints.segments("Orders", 2).block(WAIT);
        List<AggregateId> ids =
                List.of(AggregateId.of(ORDER, "o-1"), AggregateId.of(ORDER, "o-2"), AggregateId.of(ORDER, "o-3"));
        for (AggregateId id : ids) {
            store.append(DomainEventStream.of(CommandMessage.of(id, "Place", "r"), 1, List.of("placed")))
                    .block(WAIT);
        }
        checkpoints.claim("Orders", 1, "a", Duration.ofMinutes(1)).block(WAIT);
        checkpoints.save("Orders", 1, "a", 3).block(WAIT);
        long inOne = ids.stream().filter(id -> Segment.of(id, 2).index() == 1).count();
        long inZero = ids.size() - inOne;
        TrackingOperations operations = TrackingOperations.of(checkpoints, store, DeadLetterQueues.inMemory());

        try (TrackingMetrics metrics =
                LanesMicrometer.trackingMetrics(operations, "Orders", 2, Duration.ofHours(1), List.of())) {
            metrics.bindTo(registry);
            metrics.refresh().block(WAIT);

            assertThat(value(LanesMicrometer.TRACKING_CHECKPOINT, "1")).isEqualTo(3.0);
            assertThat(value(LanesMicrometer.TRACKING_CHECKPOINT, "0")).isZero();
            assertThat(value(LanesMicrometer.TRACKING_LAG_STREAMS, "1"))
                    .as("all read")
                    .isZero();
            assertThat(value(LanesMicrometer.TRACKING_LAG_STREAMS, "0")).isEqualTo((double) inZero);
            assertThat(value(LanesMicrometer.TRACKING_LAG_SECONDS, "0")).isGreaterThanOrEqualTo(0.0);
            assertThat(value(LanesMicrometer.TRACKING_HEAD, "1")).isEqualTo(3.0);
        }
        Set<String> tagKeys = registry.getMeters().stream()
                .flatMap(meter -> meter.getId().getTags().stream())
                .map(tag -> tag.getKey())
                .collect(Collectors.toSet());
        assertThat(tagKeys).containsExactlyInAnyOrder("processor", "segment");
        assertThat(registry.getMeters().stream().map(Meter::getId).map(Meter.Id::getName))
                .hasSize(8);
    }

    @Test
    void aSegmentNotSeenYetReadsNaNAndBadSettingsAreRefusedNamingTheValue() {
        TrackingOperations operations = TrackingOperations.of(checkpoints, store, DeadLetterQueues.inMemory());
        TrackingMetrics metrics =
                LanesMicrometer.trackingMetrics(operations, "Unknown", 1, Duration.ofHours(1), List.of());
        metrics.bindTo(registry);
        metrics.close();

        assertThat(value(LanesMicrometer.TRACKING_CHECKPOINT, "0")).isNaN();
        assertThatThrownBy(() ->
                        LanesMicrometer.trackingMetrics(operations, "Orders", 3, Duration.ofSeconds(1), List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(": 3");
        assertThatThrownBy(() -> LanesMicrometer.trackingMetrics(operations, "Orders", 1, Duration.ZERO, List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT0S");
    }

    private double value(String name, String segment) {
        return registry.get(name).tag("segment", segment).gauge().value();
    }
}
