package dev.lanes.micrometer;

import io.micrometer.core.instrument.binder.MeterBinder;
import reactor.core.publisher.Mono;

/**
 * A tracking processor's checkpoint and lag per segment as gauges ({@link LanesMicrometer#trackingMetrics}). The
 * gauges read the figures of the last refresh, never the stores: scraping never waits for a database.
 */
public interface TrackingMetrics extends MeterBinder, AutoCloseable {

    /** Reads the figures again from the stores; the gauges show them once it completes. */
    Mono<Void> refresh();

    /** Stops the periodic refresh started by binding; the gauges keep the last figures. */
    @Override
    void close();
}
