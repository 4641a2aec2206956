package dev.lanes.micrometer;

import dev.lanes.dispatch.DispatcherMetrics.LaneRecorder;
import dev.lanes.dispatch.DispatcherStats;
import dev.lanes.dispatch.Outcome;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meters of one dispatcher, resolved once when it binds.
 *
 * <p>Threading: {@link #queueWait} and {@link #outcome} are called from lane threads, concurrently; they only record on
 * meters held in final fields. {@link #close} is called once.
 *
 * <p>Reachability: the dispatcher holds this recorder; the gauges hold it weakly (Micrometer's default) through value
 * functions that capture nothing of it, so a registry never keeps a dispatcher alive.
 */
final class DispatcherMeters implements LaneRecorder {
    private static final Logger log = LoggerFactory.getLogger(DispatcherMeters.class);

    private final MeterRegistry registry;
    private final Supplier<DispatcherStats> stats;
    private final Timer queueWait;
    private final Timer handledTime;
    private final Timer retriedTime;
    private final Timer parkedTime;
    private final Counter handled;
    private final Counter retried;
    private final Counter parked;
    private final Counter rejected;
    private final Counter cancelled;

    private final List<Gauge> gauges;

    DispatcherMeters(MeterRegistry registry, Tags tags, Supplier<DispatcherStats> stats) {
        this.registry = registry;
        this.stats = stats;
        this.queueWait = Timer.builder(LanesMicrometer.QUEUE_WAIT)
                .description("Time from admission to the first handler call of an exchange")
                .tags(tags)
                .register(registry);
        this.handledTime = handleTimer(registry, tags, Outcome.HANDLED);
        this.retriedTime = handleTimer(registry, tags, Outcome.RETRIED);
        this.parkedTime = handleTimer(registry, tags, Outcome.PARKED);
        this.handled = outcomeCounter(registry, tags, Outcome.HANDLED);
        this.retried = outcomeCounter(registry, tags, Outcome.RETRIED);
        this.parked = outcomeCounter(registry, tags, Outcome.PARKED);
        this.rejected = outcomeCounter(registry, tags, Outcome.REJECTED);
        this.cancelled = outcomeCounter(registry, tags, Outcome.CANCELLED);
        if (registry.find(LanesMicrometer.QUEUED).tags(tags).gauge() != null) {
            log.warn(
                    "A dispatcher with tags {} is already bound to this registry: its gauges go on reporting it, not"
                            + " the new one (dispatcher names must be unique per named aggregate)",
                    tags);
        }
        this.gauges = List.of(
                gauge(
                        tags,
                        LanesMicrometer.QUEUED,
                        "exchanges",
                        "Exchanges admitted and not yet settled",
                        s -> s.queued()),
                gauge(tags, LanesMicrometer.IN_FLIGHT, "exchanges", "Handlers running now", s -> s.inFlight()),
                gauge(tags, LanesMicrometer.LANES, "lanes", "Lanes holding work now", s -> s.lanes()),
                gauge(
                        tags,
                        LanesMicrometer.DEEPEST_LANE,
                        "exchanges",
                        "Exchanges in the fullest lane",
                        s -> s.deepestLane()),
                gauge(
                        tags,
                        LanesMicrometer.LANE_SKEW,
                        null,
                        "Depth of the fullest lane over the mean depth of the lanes holding work",
                        s -> s.laneSkew()));
    }

    private static Timer handleTimer(MeterRegistry registry, Tags tags, Outcome outcome) {
        return Timer.builder(LanesMicrometer.HANDLE)
                .description("One handler attempt, by its outcome")
                .tags(tags)
                .tag(LanesMicrometer.OUTCOME_TAG, outcome.tagValue())
                .register(registry);
    }

    private static Counter outcomeCounter(MeterRegistry registry, Tags tags, Outcome outcome) {
        return Counter.builder(LanesMicrometer.OUTCOMES)
                .description("What became of handler attempts and of exchanges left unhandled")
                .tags(tags)
                .tag(LanesMicrometer.OUTCOME_TAG, outcome.tagValue())
                .register(registry);
    }

    /** A gauge holding this recorder weakly; {@code value} must capture nothing that reaches the dispatcher. */
    private Gauge gauge(
            Tags tags,
            String name,
            @Nullable String baseUnit,
            String description,
            ToDoubleFunction<DispatcherStats> value) {
        return Gauge.builder(name, this, meters -> value.applyAsDouble(meters.stats.get()))
                .description(description)
                .baseUnit(baseUnit)
                .tags(tags)
                .register(registry);
    }

    @Override
    public void queueWait(long nanos) {
        queueWait.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void outcome(Outcome outcome, long handlerNanos) {
        switch (outcome) {
            case HANDLED -> {
                handled.increment();
                handledTime.record(handlerNanos, TimeUnit.NANOSECONDS);
            }
            case RETRIED -> {
                retried.increment();
                retriedTime.record(handlerNanos, TimeUnit.NANOSECONDS);
            }
            case PARKED -> {
                parked.increment();
                parkedTime.record(handlerNanos, TimeUnit.NANOSECONDS);
            }
            case REJECTED -> rejected.increment(); // never handled: no handler time
            case CANCELLED -> cancelled.increment();
        }
    }

    /** The dispatcher stopped: its gauges go; its timers and counters keep their totals. */
    @Override
    public void close() {
        for (Meter gauge : gauges) {
            registry.remove(gauge);
        }
    }
}
