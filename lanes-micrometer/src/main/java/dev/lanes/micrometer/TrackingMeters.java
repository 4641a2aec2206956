package dev.lanes.micrometer;

import dev.lanes.processing.tracking.SegmentStatus;
import dev.lanes.processing.tracking.TrackingOperations;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Gauges of one processor's segments, tagged with the processor and the segment (never an aggregate), over the
 * figures of the last refresh; a segment not seen yet reads NaN. Binding starts a refresh every {@code interval} on the
 * {@code timer}; a failed refresh is logged and the gauges keep the figures before it.
 */
final class TrackingMeters implements TrackingMetrics {
    private static final Logger log = LoggerFactory.getLogger(TrackingMeters.class);

    private final TrackingOperations operations;
    private final String processor;
    private final int segments;
    private final Tags tags;
    private final Duration interval;
    private final Scheduler timer;
    private final Map<Integer, SegmentStatus> last = new ConcurrentHashMap<>();
    private volatile @Nullable Disposable refreshing;

    TrackingMeters(
            TrackingOperations operations,
            String processor,
            int segments,
            Tags tags,
            Duration interval,
            Scheduler timer) {
        this.operations = operations;
        this.processor = processor;
        this.segments = segments;
        this.tags = tags;
        this.interval = interval;
        this.timer = timer;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (int segment = 0; segment < segments; segment++) {
            Tags segmentTags = tags.and(LanesMicrometer.PROCESSOR_TAG, processor)
                    .and(LanesMicrometer.SEGMENT_TAG, String.valueOf(segment));
            gauge(registry, LanesMicrometer.TRACKING_CHECKPOINT, segment, segmentTags, SegmentStatus::checkpoint)
                    .description("The segment's last saved checkpoint (a global position)")
                    .register(registry);
            gauge(registry, LanesMicrometer.TRACKING_HEAD, segment, segmentTags, SegmentStatus::head)
                    .description("The position of the segment's last stream stored")
                    .register(registry);
            gauge(registry, LanesMicrometer.TRACKING_LAG_STREAMS, segment, segmentTags, SegmentStatus::lagStreams)
                    .description("The segment's streams stored above its checkpoint")
                    .baseUnit("streams")
                    .register(registry);
            gauge(
                            registry,
                            LanesMicrometer.TRACKING_LAG_SECONDS,
                            segment,
                            segmentTags,
                            status -> status.lagTime().toMillis() / 1000.0)
                    .description("How long ago the oldest stream above the segment's checkpoint was stored")
                    .baseUnit("seconds")
                    .register(registry);
        }
        synchronized (this) {
            if (refreshing == null) {
                refreshing = Flux.interval(Duration.ZERO, interval, timer)
                        .concatMap(tick -> refresh().onErrorResume(error -> {
                            log.warn("Refreshing the tracking meters of {} failed: {}", processor, error.toString());
                            return Mono.empty();
                        }))
                        .subscribe();
            }
        }
    }

    private Gauge.Builder<TrackingMeters> gauge(
            MeterRegistry registry, String name, int segment, Tags segmentTags, ToDoubleFunction<SegmentStatus> value) {
        return Gauge.builder(name, this, meters -> {
                    SegmentStatus status = meters.last.get(segment);
                    return status == null ? Double.NaN : value.applyAsDouble(status);
                })
                .tags(segmentTags);
    }

    @Override
    public Mono<Void> refresh() {
        return operations
                .status(processor)
                .doOnNext(statuses ->
                        statuses.forEach(status -> last.put(status.segment().index(), status)))
                .then();
    }

    @Override
    public synchronized void close() {
        Disposable current = refreshing;
        if (current != null) {
            current.dispose();
        }
    }

    @Override
    public String toString() {
        return "TrackingMeters[" + processor + ", " + segments + " segment(s), every " + interval + "]";
    }
}
