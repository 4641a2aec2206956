package dev.lanes.cli.report;

import dev.lanes.dispatch.HotKey;
import dev.lanes.runtime.ShutdownReport;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.jspecify.annotations.Nullable;

/**
 * What one run found: an immutable value, built by the run once it stopped, then rendered as text, JSON and HTML.
 * Latencies are in microseconds.
 *
 * @param run where and when it ran
 * @param setup what was run
 * @param load how much was handled in how long
 * @param latency end-to-end latencies, per stage and merged
 * @param counts outcomes, retries, parking and the derived loss and ordering counts
 * @param aggregates per dispatcher and aggregate type, in binding order
 * @param threads live threads at peak and after the stop
 * @param invariants what the run must have, in the order they were checked
 * @param shutdown the runtime's shutdown report, or null when even the forced stop did not end in time
 * @param timeline what the sampler saw over time
 * @param notes remarks of the run (errors seen, a stall, a warm-up left out...)
 */
public record Report(
        RunInfo run,
        Setup setup,
        Load load,
        LatencyReport latency,
        Counts counts,
        List<AggregateRow> aggregates,
        Threads threads,
        List<Invariant> invariants,
        @Nullable ShutdownReport shutdown,
        Timeline timeline,
        List<String> notes) {

    public Report {
        aggregates = List.copyOf(aggregates);
        invariants = List.copyOf(invariants);
        notes = List.copyOf(notes);
    }

    /** This report with {@code more} notes after its own. */
    public Report withNotes(List<String> more) {
        List<String> all = new ArrayList<>(notes);
        all.addAll(more);
        return new Report(run, setup, load, latency, counts, aggregates, threads, invariants, shutdown, timeline, all);
    }

    public boolean passed() {
        return invariants.stream().allMatch(Invariant::passed);
    }

    public long failedInvariants() {
        return invariants.stream().filter(invariant -> !invariant.passed()).count();
    }

    /**
     * What was run.
     *
     * @param unit what a message is called in this run: "commands" or "messages"
     * @param lines one line each: counts, mix, settings
     * @param options as given or defaulted, in a stable order
     */
    public record Setup(
            String scenario,
            String strategy,
            String title,
            String unit,
            List<String> lines,
            Map<String, String> options) {
        public Setup {
            lines = List.copyOf(lines);
            options = Collections.unmodifiableMap(new LinkedHashMap<>(options));
        }
    }

    /**
     * @param messages sent or generated
     * @param handled of them
     * @param nanos from the start of the load to its last answer
     */
    /**
     * What the throughput counts: {@code handled} of {@code messages} in {@code nanos}; the warm-up before (none when
     * {@code warmupNanos} is 0) is counted in neither.
     *
     * @param warmupMessages how many messages were sent during the warm-up
     */
    public record Load(long messages, long handled, long nanos, long warmupNanos, long warmupMessages) {
        public Load(long messages, long handled, long nanos) {
            this(messages, handled, nanos, 0, 0);
        }

        public double throughputPerSecond() {
            return nanos <= 0 ? 0 : handled * 1e9 / nanos;
        }

        public long durationMillis() {
            return nanos / 1_000_000;
        }
    }

    /**
     * @param stages per stage, in the order the run reports them
     * @param all every stage merged
     * @param otherIds the ids other than the hot one (hot-key only), else null
     * @param hotId the hot id (hot-key only), else null
     * @param distribution behind {@code all}, for the HTML histogram
     */
    public record LatencyReport(
            List<Latency> stages,
            Latency all,
            @Nullable Latency otherIds,
            @Nullable Latency hotId,
            Distribution distribution) {
        public LatencyReport {
            stages = List.copyOf(stages);
        }
    }

    /** One latency distribution, summarized. */
    public record Latency(String name, long count, double p50, double p90, double p99, double p999, double max) {

        public static Latency of(String name, Histogram nanos) {
            if (nanos.getTotalCount() == 0) {
                return empty(name);
            }
            return new Latency(
                    name,
                    nanos.getTotalCount(),
                    micros(nanos.getValueAtPercentile(50)),
                    micros(nanos.getValueAtPercentile(90)),
                    micros(nanos.getValueAtPercentile(99)),
                    micros(nanos.getValueAtPercentile(99.9)),
                    micros(nanos.getMaxValue()));
        }

        public static Latency empty(String name) {
            return new Latency(name, 0, 0, 0, 0, 0, 0);
        }

        private static double micros(long nanos) {
            return nanos / 1000.0;
        }
    }

    /** A latency distribution as recorded: each distinct value (nanoseconds, HdrHistogram precision) and its count. */
    public record Distribution(List<Value> values) {
        public static final Distribution EMPTY = new Distribution(List.of());

        public Distribution {
            values = List.copyOf(values);
        }

        public static Distribution of(Histogram nanos) {
            List<Value> values = new java.util.ArrayList<>();
            for (HistogramIterationValue value : nanos.recordedValues()) {
                values.add(new Value(value.getValueIteratedTo(), value.getCountAtValueIteratedTo()));
            }
            return new Distribution(values);
        }

        public long totalCount() {
            return values.stream().mapToLong(Value::count).sum();
        }

        public long minNonZeroNanos() {
            return values.stream()
                    .mapToLong(Value::nanos)
                    .filter(nanos -> nanos > 0)
                    .min()
                    .orElse(0);
        }

        public long maxNanos() {
            return values.stream().mapToLong(Value::nanos).max().orElse(0);
        }

        public record Value(long nanos, long count) {}
    }

    /**
     * @param outcomes how the messages ended, by name, in a stable order
     * @param rejected handed back to their source (rejected or cancelled)
     * @param lost sent or delivered and never settled or stored
     * @param stuckLaneMessages routed to the stuck lane (stuck-lane only), else null
     */
    public record Counts(
            Map<String, Long> outcomes,
            long retried,
            long parked,
            long rejected,
            long orderingViolations,
            long lost,
            @Nullable Long stuckLaneMessages) {
        public Counts {
            outcomes = Collections.unmodifiableMap(new LinkedHashMap<>(outcomes));
        }
    }

    /** Live threads: the sampled peak, and the count after the stop. */
    public record Threads(int peak, int afterStop) {}

    /** One dispatcher of one aggregate type: outcomes, queue wait, handler time, lanes and hot ids. */
    public record AggregateRow(
            String dispatcher,
            String aggregate,
            long handled,
            long retried,
            long parked,
            long rejected,
            long cancelled,
            Latency queueWait,
            Latency handlerTime,
            int peakLanes,
            int peakDeepestLane,
            double peakSkew,
            List<HotKey> hottest) {

        public AggregateRow {
            hottest = List.copyOf(hottest);
        }

        public String label() {
            return dispatcher + " " + aggregate;
        }
    }

    /** A property the run must have. */
    public record Invariant(String name, boolean passed, String detail) {
        public String status() {
            return passed ? "PASS" : "FAIL";
        }
    }
}
