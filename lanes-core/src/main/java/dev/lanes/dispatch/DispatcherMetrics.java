package dev.lanes.dispatch;

import dev.lanes.api.MaterializedNamedAggregate;
import java.util.function.Supplier;

/**
 * The metrics SPI of the lane engine; {@link #NONE} (no timing at all) unless bound. The {@code lanes-micrometer} module
 * binds it to Micrometer: {@code LanesMicrometer.dispatcherMetrics(registry)}.
 *
 * <p>Each dispatcher binds once when it prepares and closes its recorder once, when it stops or its preparation fails.
 * A recorder that throws is logged once and ignored: it never breaks a lane. Tags are low-cardinality: the dispatcher
 * name, the named aggregate and the {@link Outcome}; aggregate ids appear only in {@link DispatcherStats#hottestIds()},
 * never as a tag.
 */
@FunctionalInterface
public interface DispatcherMetrics {

    DispatcherMetrics NONE = (dispatcher, namedAggregate, stats) -> LaneRecorder.NONE;

    /**
     * @param stats a live view for gauges (queued, in flight, lane skew, hot ids); cheap, callable from any thread
     */
    LaneRecorder bind(String dispatcher, MaterializedNamedAggregate namedAggregate, Supplier<DispatcherStats> stats);

    /** Records per-exchange timings from lane threads: must not block and must not throw. */
    interface LaneRecorder {
        LaneRecorder NONE = new LaneRecorder() {};

        /** Time from admission to the first handler call. */
        default void queueWait(long nanos) {}

        /**
         * One handling attempt ended ({@code HANDLED}, {@code RETRIED}, {@code PARKED}), with its handler time; or an
         * exchange ended unhandled ({@code REJECTED}, {@code CANCELLED}), with {@code handlerNanos} 0.
         */
        default void outcome(Outcome outcome, long handlerNanos) {}

        /** The dispatcher stopped: release gauges. */
        default void close() {}
    }
}
