package dev.lanes.micrometer;

import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.processing.tracking.TrackingOperations;
import dev.lanes.runtime.LanesRuntime;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import reactor.core.scheduler.Schedulers;

/**
 * Binds Lanes to Micrometer: {@link #dispatcherMetrics} for the lane engine of every dispatcher it is given to, {@link
 * #runtimeMetrics} for a runtime's lifecycle and shutdown.
 *
 * <pre>{@code
 * DispatcherMetrics metrics = LanesMicrometer.dispatcherMetrics(registry);
 * CommandDispatcher.builder(commandBus, store, eventBus, results).metrics(metrics)...;
 * CompositeEventDispatcher.builder("EventDispatcher", eventBus).metrics(metrics)...;
 * LanesMicrometer.runtimeMetrics(runtime).bindTo(registry);
 * }</pre>
 *
 * <p><b>Names</b> follow Micrometer's conventions: lower-case, dot-separated, one name per measurement and the
 * variations as tags, so each registry renders them its own way ({@code lanes_dispatcher_handle_seconds} in
 * Prometheus). Every dispatcher meter is tagged {@value #DISPATCHER_TAG} (the dispatcher's name, e.g. {@code
 * CommandDispatcher} or an event processor's name) and {@value #AGGREGATE_TAG} (the named aggregate, e.g. {@code
 * bank.account}); outcomes are tagged {@value #OUTCOME_TAG} with {@link dev.lanes.dispatch.Outcome#tagValue()}.
 * Aggregate ids are never tags: the hottest ones are in {@code AggregateDispatcher.stats()}.
 *
 * <p>Timers publish no histogram by default; turn one on with a {@code MeterFilter}, as for any Micrometer timer.
 */
public final class LanesMicrometer {
    /** Tag: the dispatcher's name. */
    public static final String DISPATCHER_TAG = "dispatcher";
    /** Tag: the named aggregate, {@code context.aggregate}. */
    public static final String AGGREGATE_TAG = "aggregate";
    /** Tag: an {@link dev.lanes.dispatch.Outcome}, lower case. */
    public static final String OUTCOME_TAG = "outcome";
    /** Tag: a {@link LanesRuntime.State}, lower case. */
    public static final String STATE_TAG = "state";

    /** Timer: from admission to the first handler call of an exchange. */
    public static final String QUEUE_WAIT = "lanes.dispatcher.queue.wait";
    /** Timer: one handler attempt, tagged with its outcome ({@code handled}, {@code retried} or {@code parked}). */
    public static final String HANDLE = "lanes.dispatcher.handle";
    /**
     * Counter: outcomes, tagged {@code handled}, {@code retried} (an attempt that will be retried), {@code parked},
     * {@code rejected} (handed back to the source unhandled) or {@code cancelled} (by a force stop).
     */
    public static final String OUTCOMES = "lanes.dispatcher.outcomes";
    /** Gauge: exchanges admitted and not yet settled, running ones included. */
    public static final String QUEUED = "lanes.dispatcher.queued";
    /** Gauge: handlers running now. */
    public static final String IN_FLIGHT = "lanes.dispatcher.in.flight";
    /** Gauge: lanes holding work now. */
    public static final String LANES = "lanes.dispatcher.lanes";
    /** Gauge: exchanges in the fullest lane. */
    public static final String DEEPEST_LANE = "lanes.dispatcher.lane.depth.max";
    /** Gauge: the fullest lane's depth over the mean depth of the lanes holding work; 1 is even, 0 when idle. */
    public static final String LANE_SKEW = "lanes.dispatcher.lane.skew";

    /** Gauge: 1 for the runtime's current state, 0 for the others, one series per {@value #STATE_TAG}. */
    public static final String RUNTIME_STATE = "lanes.runtime.state";
    /** Gauge: activity leases open now (admitted work not yet settled). */
    public static final String RUNTIME_LEASES_OPEN = "lanes.runtime.leases.open";
    /** Function counter: activity leases admitted since start. */
    public static final String RUNTIME_LEASES_ADMITTED = "lanes.runtime.leases.admitted";
    /** Time gauge: how long the shutdown took; NaN until the runtime stopped. */
    public static final String SHUTDOWN_DURATION = "lanes.runtime.shutdown.duration";
    /** Gauge: 1 if the shutdown was graceful, 0 if it was forced or failed; NaN until the runtime stopped. */
    public static final String SHUTDOWN_GRACEFUL = "lanes.runtime.shutdown.graceful";
    /** Gauge: leases the shutdown cut short (work cancelled or handed back); NaN until the runtime stopped. */
    public static final String SHUTDOWN_CUT = "lanes.runtime.shutdown.cut";

    /** The tracking processor's name, on the tracking meters. */
    public static final String PROCESSOR_TAG = "processor";
    /** The segment's index, on the tracking meters. */
    public static final String SEGMENT_TAG = "segment";
    /** Gauge: a segment's last saved checkpoint. */
    public static final String TRACKING_CHECKPOINT = "lanes.tracking.checkpoint";
    /** Gauge: the position of a segment's last stream stored. */
    public static final String TRACKING_HEAD = "lanes.tracking.head";
    /** Gauge: a segment's streams stored above its checkpoint. */
    public static final String TRACKING_LAG_STREAMS = "lanes.tracking.lag.streams";
    /** Gauge: how long ago the oldest stream above a segment's checkpoint was stored. */
    public static final String TRACKING_LAG_SECONDS = "lanes.tracking.lag.seconds";

    private LanesMicrometer() {}

    /**
     * A tracking processor's checkpoint, head and lag (streams and seconds) per segment, tagged {@code processor} and
     * {@code segment} (never an aggregate id), from {@code operations} ({@code TrackingProcessor.operations()}, or
     * {@code TrackingOperations.of} in a process that does not run the processor). Binding starts a refresh every
     * {@code interval} on Reactor's parallel scheduler; close the result to stop it.
     *
     * @throws IllegalArgumentException naming the value if {@code segments} is not a valid segment count or {@code
     *     interval} is not positive
     */
    public static TrackingMetrics trackingMetrics(
            TrackingOperations operations, String processor, int segments, Duration interval, Iterable<Tag> tags) {
        Objects.requireNonNull(operations, "operations");
        Objects.requireNonNull(processor, "processor");
        Segment.requireCount(segments);
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval must be positive: " + interval);
        }
        return new TrackingMeters(operations, processor, segments, Tags.of(tags), interval, Schedulers.parallel());
    }

    /**
     * Metrics for every dispatcher given them; see {@link #dispatcherMetrics(MeterRegistry, Iterable)}.
     *
     * @param registry where the meters are registered
     * @return the binding to hand to dispatcher builders
     */
    public static DispatcherMetrics dispatcherMetrics(MeterRegistry registry) {
        return dispatcherMetrics(registry, List.of());
    }

    /**
     * Metrics for every dispatcher given them: each binds its meters when it prepares, tagged with its name and named
     * aggregate plus {@code tags}, and removes its gauges when it stops (timers and counters stay, so totals survive a
     * dispatcher that is built again under the same name). Two live dispatchers of the same name and aggregate would
     * share one set of meters: names must be unique per registry, as they are within one runtime.
     *
     * <p>On the lane threads, recording costs a counter increment and a timer record on meters resolved when the
     * dispatcher bound them: no tag is built, no meter looked up per exchange. Gauges read {@code
     * AggregateDispatcher.stats()} when the registry is scraped, and hold the dispatcher weakly.
     *
     * @param registry where the meters are registered
     * @param tags added to every meter, e.g. {@code service}
     * @return the binding to hand to dispatcher builders
     */
    public static DispatcherMetrics dispatcherMetrics(MeterRegistry registry, Iterable<Tag> tags) {
        return new MicrometerDispatcherMetrics(Objects.requireNonNull(registry, "registry"), Tags.of(tags));
    }

    /**
     * The runtime's state, leases and shutdown figures; see {@link #runtimeMetrics(LanesRuntime, Iterable)}.
     *
     * @param runtime the runtime to observe
     * @return a binder to bind to a registry
     */
    public static MeterBinder runtimeMetrics(LanesRuntime runtime) {
        return runtimeMetrics(runtime, List.of());
    }

    /**
     * The runtime's state, open and admitted leases, and its shutdown's duration, grace and cut leases. The gauges hold
     * the runtime weakly; binding does not start or stop it.
     *
     * @param runtime the runtime to observe
     * @param tags added to every meter
     * @return a binder to bind to a registry
     */
    public static MeterBinder runtimeMetrics(LanesRuntime runtime, Iterable<Tag> tags) {
        return new RuntimeMeters(Objects.requireNonNull(runtime, "runtime"), Tags.of(tags));
    }
}
