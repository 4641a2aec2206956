package dev.lanes.cli.run;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.cli.report.Report;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.dispatch.DispatcherStats;
import dev.lanes.dispatch.Outcome;
import java.util.EnumMap;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The metrics SPI bound to HdrHistograms: per dispatcher and aggregate type, the queue wait (admission to first handler
 * call) and the handler time of every attempt, and a count per {@link Outcome}.
 */
public final class RecordingMetrics implements DispatcherMetrics {
    private final List<Binding> bindings = new CopyOnWriteArrayList<>();

    @Override
    public LaneRecorder bind(
            String dispatcher, MaterializedNamedAggregate namedAggregate, Supplier<DispatcherStats> stats) {
        Binding binding = new Binding(dispatcher, namedAggregate.toString(), stats);
        bindings.add(binding);
        return binding;
    }

    /** Forgets the timings recorded so far (after a setup phase); outcome counts stay. */
    public void resetTimings() {
        bindings.forEach(binding -> {
            binding.queueWait.reset();
            binding.handlerTime.reset();
        });
    }

    /** Every binding so far, in binding order (dispatchers bind when they prepare). */
    public List<Binding> bindings() {
        return List.copyOf(bindings);
    }

    /** One dispatcher's recorder; the sampler also keeps its peaks here. */
    public static final class Binding implements LaneRecorder {
        final String dispatcher;
        final String aggregate;
        final Supplier<DispatcherStats> stats;
        final StripedRecorder queueWait = new StripedRecorder();
        final StripedRecorder handlerTime = new StripedRecorder();
        private final EnumMap<Outcome, LongAdder> outcomes = new EnumMap<>(Outcome.class);
        /** Written by the sampler thread only. */
        volatile int peakLanes;

        volatile int peakDeepestLane;
        volatile double peakSkew;

        Binding(String dispatcher, String aggregate, Supplier<DispatcherStats> stats) {
            this.dispatcher = dispatcher;
            this.aggregate = aggregate;
            this.stats = stats;
            for (Outcome outcome : Outcome.values()) {
                outcomes.put(outcome, new LongAdder());
            }
        }

        String label() {
            return dispatcher + " " + aggregate;
        }

        @Override
        public void queueWait(long nanos) {
            queueWait.record(nanos);
        }

        @Override
        public void outcome(Outcome outcome, long handlerNanos) {
            LongAdder count = outcomes.get(outcome);
            if (count != null) {
                count.increment();
            }
            if (outcome == Outcome.HANDLED || outcome == Outcome.RETRIED || outcome == Outcome.PARKED) {
                handlerTime.record(handlerNanos);
            }
        }

        long count(Outcome outcome) {
            LongAdder count = outcomes.get(outcome);
            return count == null ? 0 : count.sum();
        }

        /** Called by the sampler with a fresh view. */
        void observe(DispatcherStats now) {
            peakLanes = Math.max(peakLanes, now.lanes());
            peakDeepestLane = Math.max(peakDeepestLane, now.deepestLane());
            peakSkew = Math.max(peakSkew, now.laneSkew());
        }

        /** The row of the report: outcome totals from the dispatcher, timings from this recorder. */
        public Report.AggregateRow row() {
            DispatcherStats now = stats.get();
            observe(now);
            return new Report.AggregateRow(
                    dispatcher,
                    aggregate,
                    now.handled(),
                    now.retried(),
                    now.parked(),
                    now.rejected(),
                    now.cancelled(),
                    Report.Latency.of("queue wait", queueWait.total()),
                    Report.Latency.of("handler", handlerTime.total()),
                    peakLanes,
                    peakDeepestLane,
                    peakSkew,
                    now.hottestIds());
        }
    }
}
