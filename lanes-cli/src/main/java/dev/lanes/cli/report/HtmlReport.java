package dev.lanes.cli.report;

import dev.lanes.runtime.ShutdownReport;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The report as one self-contained HTML page: inline CSS and inline SVG, no script, font or stylesheet from anywhere,
 * so it opens offline. Tables fit the page (long text wraps, wide tables scroll inside their box); charts: latency
 * histogram, throughput over time, lane depth heat maps, each with a title and axis labels.
 */
final class HtmlReport {
    private static final String STYLE = """
            body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222;
                   margin: 24px auto; max-width: 1000px; padding: 0 16px; overflow-wrap: break-word; }
            h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 17px; margin-top: 28px; }
            .badge { display: inline-block; padding: 2px 10px; border-radius: 4px; color: #fff; font-size: 14px;
                     vertical-align: middle; }
            .PASS { background: #2e7d32; } .FAIL { background: #c62828; }
            .cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 16px 0; }
            .card { border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 120px; }
            .card b { display: block; font-size: 20px; } .card span { color: #666; font-size: 12px; }
            .table { max-width: 100%; overflow-x: auto; margin: 8px 0; }
            table { border-collapse: collapse; max-width: 100%; }
            th, td { padding: 3px 9px; border-bottom: 1px solid #e3e3e3; text-align: right; white-space: nowrap;
                     vertical-align: top; }
            th { background: #f5f5f5; }
            .l { text-align: left; white-space: normal; overflow-wrap: anywhere; word-break: break-word; }
            pre { background: #f6f6f6; padding: 10px; max-width: 100%; overflow-x: auto; white-space: pre-wrap;
                  overflow-wrap: anywhere; font-size: 12px; }
            svg { max-width: 100%; height: auto; } svg text { font-size: 11px; fill: #444; }
            svg text.chart-title { font-size: 13px; font-weight: 600; fill: #222; }
            .muted { color: #666; font-size: 12px; }
            .wf { margin: 8px 0; font-size: 12px; }
            .wf-row { display: flex; align-items: center; gap: 8px; border-bottom: 1px solid #f0f0f0; }
            .wf-label { flex: 0 0 40%; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
            .wf-track { flex: 1; position: relative; height: 12px; background: #f7f7f7; }
            .wf-bar { position: absolute; top: 1px; height: 10px; min-width: 1px; border-radius: 2px; }
            .wf-time { flex: 0 0 80px; text-align: right; font-variant-numeric: tabular-nums; }
            .wf-SEND { background: #5c6bc0; } .wf-LANE { background: #2e7d32; } .wf-STEP { background: #81c784; }
            .wf-BUS { background: #bdbdbd; } .wf-HANDLING { background: #ef6c00; }
            """;

    private final StringBuilder out = new StringBuilder();
    private final Report report;
    private final @Nullable Waterfall waterfall;

    private HtmlReport(Report report, @Nullable Waterfall waterfall) {
        this.report = report;
        this.waterfall = waterfall;
    }

    static String render(Report report) {
        return render(report, null);
    }

    /** The page, with {@code waterfall} drawn after the latency section when there is one. */
    static String render(Report report, @Nullable Waterfall waterfall) {
        return new HtmlReport(report, waterfall).render();
    }

    private String render() {
        head();
        heading();
        cards();
        invariants();
        latency();
        waterfall();
        charts();
        aggregates();
        shutdown();
        options();
        run();
        out.append("</body>\n</html>\n");
        return out.toString();
    }

    private String status() {
        return report.passed() ? "PASS" : "FAIL";
    }

    private void head() {
        out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append("<title>")
                .append(esc("Lanes report: " + report.setup().scenario() + " (" + status() + ")"))
                .append("</title>\n<style>\n")
                .append(STYLE)
                .append("</style>\n</head>\n<body>\n");
    }

    private void heading() {
        Report.Setup setup = report.setup();
        out.append("<h1>")
                .append(esc(setup.title()))
                .append(" <span class=\"badge ")
                .append(status())
                .append("\">")
                .append(status())
                .append("</span></h1>\n<ul>\n");
        setup.lines().forEach(line -> out.append("<li>").append(esc(line)).append("</li>\n"));
        item("scenario " + setup.scenario() + ", strategy " + setup.strategy());
        item("run on " + report.run().describe());
        out.append("</ul>\n");
    }

    private void item(String text) {
        out.append("<li>").append(esc(text)).append("</li>\n");
    }

    private void cards() {
        Report.Load load = report.load();
        Report.Latency all = report.latency().all();
        String unit = report.setup().unit();
        out.append("<div class=\"cards\">\n");
        card(String.format(Locale.ROOT, "%,.0f", load.throughputPerSecond()), unit + " per second");
        card(
                String.format(Locale.ROOT, "%,d / %,d", load.handled(), load.messages()),
                "handled / " + unit
                        + (load.warmupNanos() == 0
                                ? ""
                                : String.format(
                                        Locale.ROOT,
                                        " after a %.1f s warm-up (%,d more)",
                                        load.warmupNanos() / 1e9,
                                        load.warmupMessages())));
        card(TextReport.micros(all.p50()) + " us", "latency p50");
        card(TextReport.micros(all.p99()) + " us", "latency p99");
        card(TextReport.micros(all.p999()) + " us", "latency p99.9");
        Report.Latency others = report.latency().otherIds();
        if (others != null) {
            card(TextReport.micros(others.p99()) + " us", "other ids p99");
        }
        card(String.format(Locale.ROOT, "%,d", report.counts().lost()), "lost");
        card(String.format(Locale.ROOT, "%,d", report.counts().parked()), "parked");
        card(String.format(Locale.ROOT, "%,d", report.threads().peak()), "live threads (peak)");
        out.append("</div>\n");
    }

    private void card(String value, String label) {
        out.append("<div class=\"card\"><b>")
                .append(esc(value))
                .append("</b><span>")
                .append(esc(label))
                .append("</span></div>\n");
    }

    private void invariants() {
        out.append("<h2>Invariants</h2>\n");
        openTable("<th class=\"l\">status</th><th class=\"l\">invariant</th><th class=\"l\">detail</th>");
        for (Report.Invariant invariant : report.invariants()) {
            out.append("<tr><td class=\"l\"><span class=\"badge ")
                    .append(invariant.status())
                    .append("\">")
                    .append(invariant.status())
                    .append("</span></td>");
            text(invariant.name());
            text(invariant.detail());
            out.append("</tr>\n");
        }
        closeTable();
    }

    /** The traced request as rows of bars on one time axis: plain HTML and CSS, no script. */
    private void waterfall() {
        Waterfall traced = waterfall;
        if (traced == null) {
            return;
        }
        double total = Math.max(1, traced.totalNanos());
        out.append("<h2>Trace waterfall: ")
                .append(esc(traced.title()))
                .append("</h2>\n<p class=\"muted\">trace ")
                .append(esc(traced.traceId()))
                .append(", ")
                .append(esc(Formats.micros(traced.totalNanos())))
                .append(" from the send to the last span's end; bars: send, lane, lane step, event bus,"
                        + " processor</p>\n<div class=\"wf\">\n");
        for (Waterfall.Row row : traced.rows()) {
            out.append("<div class=\"wf-row\"><span class=\"wf-label\" style=\"padding-left:")
                    .append(row.depth() * 14)
                    .append("px\" title=\"")
                    .append(esc(row.label()))
                    .append("\">")
                    .append(esc(row.label()))
                    .append("</span><span class=\"wf-track\"><span class=\"wf-bar wf-")
                    .append(row.kind().name())
                    .append(String.format(
                            Locale.ROOT,
                            "\" style=\"left:%.2f%%;width:%.2f%%\"></span></span><span class=\"wf-time\">",
                            100 * row.startNanos() / total,
                            100 * row.durationNanos() / total))
                    .append(esc(Formats.micros(row.durationNanos())))
                    .append("</span></div>\n");
        }
        out.append("</div>\n");
    }

    private void latency() {
        Report.LatencyReport latency = report.latency();
        out.append("<h2>Latency</h2>\n")
                .append(Charts.latencyHistogram(latency.distribution(), markers(latency.all())))
                .append('\n');
        openTable("<th class=\"l\">stage</th><th>count</th><th>p50 us</th><th>p90 us</th><th>p99 us</th>"
                + "<th>p99.9 us</th><th>max us</th>");
        latency.stages().forEach(this::latencyRow);
        if (latency.stages().size() != 1) {
            latencyRow(latency.all());
        }
        closeTable();
    }

    private static List<Charts.Marker> markers(Report.Latency all) {
        return List.of(
                new Charts.Marker("p50", all.p50()),
                new Charts.Marker("p99", all.p99()),
                new Charts.Marker("p99.9", all.p999()));
    }

    private void latencyRow(Report.Latency latency) {
        out.append("<tr>");
        text(latency.name());
        cell(String.format(Locale.ROOT, "%,d", latency.count()));
        cell(TextReport.micros(latency.p50()));
        cell(TextReport.micros(latency.p90()));
        cell(TextReport.micros(latency.p99()));
        cell(TextReport.micros(latency.p999()));
        cell(TextReport.micros(latency.max()));
        out.append("</tr>\n");
    }

    private void charts() {
        String unit = report.setup().unit();
        out.append("<h2>Throughput over time</h2>\n<p class=\"muted\">")
                .append(esc(unit))
                .append(" settled per second between samples.</p>\n")
                .append(Charts.throughput(report.timeline(), unit))
                .append('\n');
        out.append("<h2>Lane depth</h2>\n<p class=\"muted\">Per dispatcher and aggregate type, sampled over time:"
                        + " its deepest lane, and the exchanges it holds (queued and running). Hover a cell for its"
                        + " value.</p>\n")
                .append(Charts.heatMap(report.timeline(), "deepest lane", Timeline.Sample::deepest))
                .append('\n')
                .append(Charts.heatMap(report.timeline(), "queued", Timeline.Sample::queued))
                .append('\n');
    }

    private void aggregates() {
        out.append("<h2>Aggregates</h2>\n<p class=\"muted\">Queue wait: admission to the first handler call. Handler:"
                + " each attempt. Lanes, deepest lane and skew: peaks of the samples. Hottest ids: sampled"
                + " estimates.</p>\n");
        openTable("<th class=\"l\">dispatcher</th><th class=\"l\">aggregate</th><th>handled</th><th>retried</th>"
                + "<th>parked</th><th>rejected</th><th>queue p50 us</th><th>queue p99 us</th><th>handler p50 us</th>"
                + "<th>handler p99 us</th><th>lanes</th><th>deepest</th><th>skew</th>"
                + "<th class=\"l\">hottest ids</th>");
        report.aggregates().forEach(this::aggregateRow);
        closeTable();
    }

    private void aggregateRow(Report.AggregateRow row) {
        out.append("<tr>");
        text(row.dispatcher());
        text(row.aggregate());
        cell(String.format(Locale.ROOT, "%,d", row.handled()));
        cell(String.format(Locale.ROOT, "%,d", row.retried()));
        cell(String.format(Locale.ROOT, "%,d", row.parked()));
        cell(String.format(Locale.ROOT, "%,d", row.rejected() + row.cancelled()));
        cell(TextReport.micros(row.queueWait().p50()));
        cell(TextReport.micros(row.queueWait().p99()));
        cell(TextReport.micros(row.handlerTime().p50()));
        cell(TextReport.micros(row.handlerTime().p99()));
        cell(String.format(Locale.ROOT, "%,d", row.peakLanes()));
        cell(String.format(Locale.ROOT, "%,d", row.peakDeepestLane()));
        cell(String.format(Locale.ROOT, "%.1f", row.peakSkew()));
        text(TextReport.hottest(row.hottest()));
        out.append("</tr>\n");
    }

    private void shutdown() {
        ShutdownReport shutdown = report.shutdown();
        Report.Counts counts = report.counts();
        out.append("<h2>Shutdown</h2>\n<pre>")
                .append(esc(shutdown == null ? "The stop did not end in time." : shutdown.toString()))
                .append("</pre>\n<p>")
                .append(esc(String.format(
                        Locale.ROOT,
                        "Retried %,d, parked %,d, handed back %,d. Live threads: %,d at peak, %,d after the stop.",
                        counts.retried(),
                        counts.parked(),
                        counts.rejected(),
                        report.threads().peak(),
                        report.threads().afterStop())))
                .append("</p>\n");
        notes();
    }

    private void notes() {
        if (report.notes().isEmpty()) {
            return;
        }
        out.append("<ul>\n");
        report.notes().forEach(this::item);
        out.append("</ul>\n");
    }

    private void options() {
        out.append("<h2>Options and outcomes</h2>\n");
        openTable("<th class=\"l\">name</th><th class=\"l\">value</th>");
        report.setup().options().forEach(this::pair);
        report.counts().outcomes().forEach((name, count) -> pair(name, String.format(Locale.ROOT, "%,d", count)));
        closeTable();
    }

    private void run() {
        RunInfo run = report.run();
        out.append("<h2>Run</h2>\n");
        openTable("<th class=\"l\">name</th><th class=\"l\">value</th>");
        pair("JDK", run.jdk() + " (" + run.vm() + ")");
        pair("available processors", Integer.toString(run.processors()));
        pair("started (UTC)", run.startedAt());
        pair("lanes commit", run.commit());
        closeTable();
    }

    private void pair(String name, String value) {
        out.append("<tr>");
        text(name);
        text(value);
        out.append("</tr>\n");
    }

    private void openTable(String headings) {
        out.append("<div class=\"table\"><table>\n<tr>").append(headings).append("</tr>\n");
    }

    private void closeTable() {
        out.append("</table></div>\n");
    }

    /** A numeric cell: right-aligned, never wrapped. */
    private void cell(String text) {
        out.append("<td>").append(esc(text)).append("</td>");
    }

    /** A text cell: left-aligned, wrapped to fit the page. */
    private void text(String text) {
        out.append("<td class=\"l\">").append(esc(text)).append("</td>");
    }

    private static String esc(String text) {
        return Html.escape(text);
    }
}
