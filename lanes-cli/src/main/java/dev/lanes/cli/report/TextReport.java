package dev.lanes.cli.report;

import dev.lanes.dispatch.HotKey;
import dev.lanes.runtime.ShutdownReport;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The report as plain text for stdout: aligned columns, no colour, no terminal control. */
final class TextReport {
    private static final int HOTTEST_SHOWN = 3;
    private static final int MAX_ROWS = 8;

    private final StringBuilder out = new StringBuilder();
    private final Report report;

    private TextReport(Report report) {
        this.report = report;
    }

    static String render(Report report) {
        return new TextReport(report).render();
    }

    private String render() {
        header();
        throughput();
        latencies();
        aggregates();
        outcomes();
        invariants();
        ShutdownReport shutdown = report.shutdown();
        line("Shutdown      %s", shutdown == null ? "did not end in time" : indent(shutdown.toString()));
        line(
                "Threads       %,d live at peak, %,d after the stop",
                report.threads().peak(), report.threads().afterStop());
        report.notes().forEach(note -> line("Note          %s", note));
        long failed = report.failedInvariants();
        line(
                "Result        %s (%d of %d invariants passed)",
                failed == 0 ? "PASS" : "FAIL",
                report.invariants().size() - failed,
                report.invariants().size());
        return out.toString();
    }

    private void header() {
        Report.Setup setup = report.setup();
        line("%s", setup.title());
        setup.lines().forEach(each -> line("  %s", each));
        line("  scenario %s, strategy %s", setup.scenario(), setup.strategy());
        line("");
    }

    private void throughput() {
        Report.Load load = report.load();
        String unit = report.setup().unit();
        String warmup = load.warmupNanos() == 0
                ? ""
                : String.format(
                        Locale.ROOT,
                        ", after a warm-up of %.2f s and %,d %s not counted",
                        load.warmupNanos() / 1e9,
                        load.warmupMessages(),
                        unit);
        line(
                "Throughput    %,.0f %s/s (%,d of %,d %s handled in %.2f s%s)",
                load.throughputPerSecond(), unit, load.handled(), load.messages(), unit, load.nanos() / 1e9, warmup);
    }

    private void outcomes() {
        Report.Counts counts = report.counts();
        line(
                "Outcomes      %s",
                counts.outcomes().entrySet().stream()
                        .map(e -> String.format(Locale.ROOT, "%s %,d", e.getKey(), e.getValue()))
                        .collect(Collectors.joining(", ")));
        line(
                "Retries       %,d retried, %,d parked, %,d handed back to their source",
                counts.retried(), counts.parked(), counts.rejected());
    }

    private void invariants() {
        line("Invariants");
        int width = report.invariants().stream()
                .mapToInt(i -> i.name().length())
                .max()
                .orElse(10);
        for (Report.Invariant invariant : report.invariants()) {
            line("  %s  %-" + width + "s  %s", invariant.status(), invariant.name(), invariant.detail());
        }
    }

    private void latencies() {
        line("Latency (us)  %-24s %10s %9s %9s %9s %9s %9s", "stage", "count", "p50", "p90", "p99", "p99.9", "max");
        List<Report.Latency> stages = report.latency().stages();
        stages.forEach(this::latency);
        if (stages.size() != 1) {
            latency(report.latency().all());
        }
    }

    private void latency(Report.Latency latency) {
        line(
                "              %-24s %,10d %9s %9s %9s %9s %9s",
                latency.name(),
                latency.count(),
                micros(latency.p50()),
                micros(latency.p90()),
                micros(latency.p99()),
                micros(latency.p999()),
                micros(latency.max()));
    }

    private void aggregates() {
        int width = Math.max(
                22,
                report.aggregates().stream()
                        .mapToInt(row -> row.label().length())
                        .max()
                        .orElse(0));
        line("Aggregates    queue wait (admission to handler) and handler time in us; lanes sampled at peak");
        aggregateHeader(width);
        shown().forEach(row -> aggregateRow(width, row));
        more();
        line(
                "Hottest ids   at least this many messages in the last 10-20 s (AggregateDispatcher.stats(), a sampled sketch)");
        shown().forEach(row -> line("  %-" + width + "s %s", row.label(), hottest(row.hottest())));
        more();
    }

    private void aggregateHeader(int width) {
        line(
                "  %-" + width + "s %10s %7s %6s %8s  %9s %9s  %9s %9s  %6s %7s %6s",
                "dispatcher aggregate",
                "handled",
                "retried",
                "parked",
                "rejected",
                "queue p50",
                "p99",
                "handle p50",
                "p99",
                "lanes",
                "deepest",
                "skew");
    }

    private void aggregateRow(int width, Report.AggregateRow row) {
        line(
                "  %-" + width + "s %,10d %,7d %,6d %,8d  %9s %9s  %9s %9s  %,6d %,7d %6.1f",
                row.label(),
                row.handled(),
                row.retried(),
                row.parked(),
                row.rejected() + row.cancelled(),
                micros(row.queueWait().p50()),
                micros(row.queueWait().p99()),
                micros(row.handlerTime().p50()),
                micros(row.handlerTime().p99()),
                row.peakLanes(),
                row.peakDeepestLane(),
                row.peakSkew());
    }

    /** The aggregate rows printed: all of them, or the first few when there are many (many-types). */
    private List<Report.AggregateRow> shown() {
        List<Report.AggregateRow> rows = report.aggregates();
        return rows.size() <= MAX_ROWS ? rows : rows.subList(0, MAX_ROWS - 2);
    }

    private void more() {
        int hidden = report.aggregates().size() - shown().size();
        if (hidden > 0) {
            line("  ... and %d more (every row is in the JSON and HTML reports)", hidden);
        }
    }

    /**
     * The ids that stand out of the sketch's error (their guaranteed count, {@code count - error}, is at least the
     * error), with that guaranteed count. Under uniform traffic none does, and the line says so.
     */
    static String hottest(List<HotKey> keys) {
        String shown = keys.stream()
                .filter(key -> key.count() - key.error() >= Math.max(1, key.error()))
                .sorted(Comparator.comparingLong((HotKey key) -> key.count() - key.error())
                        .reversed())
                .limit(HOTTEST_SHOWN)
                .map(key -> String.format(Locale.ROOT, "%s (>= %,d)", key.id(), key.count() - key.error()))
                .collect(Collectors.joining(", "));
        return shown.isEmpty() ? "- (no id stands out of the sketch's error)" : shown;
    }

    /** Microseconds: one decimal below 100, whole numbers with separators above. */
    static String micros(double value) {
        return value < 100 ? String.format(Locale.ROOT, "%.1f", value) : String.format(Locale.ROOT, "%,.0f", value);
    }

    private static String indent(String block) {
        return block.replace(System.lineSeparator(), System.lineSeparator() + "            ");
    }

    private void line(String format, Object... args) {
        out.append(String.format(Locale.ROOT, format, args)).append(System.lineSeparator());
    }
}
