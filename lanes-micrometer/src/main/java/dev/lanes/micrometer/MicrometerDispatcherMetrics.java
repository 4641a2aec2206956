package dev.lanes.micrometer;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.dispatch.DispatcherStats;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.function.Supplier;

/** Gives each dispatcher that binds its own {@link DispatcherMeters}, tagged with its name and named aggregate. */
final class MicrometerDispatcherMetrics implements DispatcherMetrics {
    private final MeterRegistry registry;
    private final Tags tags;

    MicrometerDispatcherMetrics(MeterRegistry registry, Tags tags) {
        this.registry = registry;
        this.tags = tags;
    }

    @Override
    public LaneRecorder bind(
            String dispatcher, MaterializedNamedAggregate namedAggregate, Supplier<DispatcherStats> stats) {
        Tags dispatcherTags = tags.and(
                LanesMicrometer.DISPATCHER_TAG, dispatcher, LanesMicrometer.AGGREGATE_TAG, namedAggregate.toString());
        return new DispatcherMeters(registry, dispatcherTags, stats);
    }

    @Override
    public String toString() {
        return "MicrometerDispatcherMetrics[" + registry.getClass().getSimpleName() + ", " + tags + "]";
    }
}
