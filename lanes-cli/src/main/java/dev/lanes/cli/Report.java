package dev.lanes.cli;

import dev.lanes.dispatch.HotKey;
import dev.lanes.runtime.ShutdownReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * What one run found, as the text, JSON and HTML writers render it. Filled in by the command that ran, then read.
 * Latencies are in microseconds.
 */
final class Report {
    final String scenario;
    final String strategy;
    String title = "";
    /** What was run, one line each (counts, mix, settings). */
    final List<String> setup = new ArrayList<>();
    /** Options as given or defaulted, for the JSON and HTML reports. */
    final Map<String, String> options = new LinkedHashMap<>();
    /** What a message is called in this run: "commands" or "messages". */
    String unit = "messages";

    long messages;
    long handled;
    long loadNanos;
    final List<Latency> stages = new ArrayList<>();
    Latency latency = Latency.empty("all");

    @Nullable
    Latency otherIds;

    @Nullable
    Latency hotId;
    /** The distribution behind {@link #latency}, in nanoseconds, for the HTML histogram. */
    @Nullable
    Histogram latencyHistogram;

    final List<AggregateRow> aggregates = new ArrayList<>();
    final Map<String, Long> outcomes = new LinkedHashMap<>();
    long retried;
    long parked;
    long rejected;
    long orderingViolations;
    long lost;
    /** Messages routed to the stuck lane (stuck-lane only), else null. */
    @Nullable
    Long stuckLaneMessages;

    int liveThreadsPeak;
    int liveThreadsAfter;
    final List<Invariant> invariants = new ArrayList<>();

    @Nullable
    ShutdownReport shutdown;

    Timeline timeline = Timeline.EMPTY;
    final List<String> notes = new ArrayList<>();

    Report(String scenario, String strategy) {
        this.scenario = scenario;
        this.strategy = strategy;
    }

    double throughputPerSecond() {
        return loadNanos <= 0 ? 0 : handled * 1e9 / loadNanos;
    }

    boolean passed() {
        return invariants.stream().allMatch(Invariant::passed);
    }

    void check(String name, boolean passed, String detail) {
        invariants.add(new Invariant(name, passed, detail));
    }

    /** One latency distribution, summarized. */
    record Latency(String name, long count, double p50, double p90, double p99, double p999, double max) {

        static Latency of(String name, Histogram nanos) {
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

        static Latency empty(String name) {
            return new Latency(name, 0, 0, 0, 0, 0, 0);
        }

        private static double micros(long nanos) {
            return nanos / 1000.0;
        }
    }

    /** One dispatcher of one aggregate type: outcomes, queue wait, handler time, lanes and hot ids. */
    record AggregateRow(
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

        AggregateRow {
            hottest = List.copyOf(hottest);
        }

        String label() {
            return dispatcher + " " + aggregate;
        }
    }

    /** A property the run must have. */
    record Invariant(String name, boolean passed, String detail) {
        String status() {
            return passed ? "PASS" : "FAIL";
        }
    }
}
