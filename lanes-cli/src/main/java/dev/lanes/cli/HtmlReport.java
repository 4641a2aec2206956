package dev.lanes.cli;

import dev.lanes.runtime.ShutdownReport;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The report as one self-contained HTML page: inline CSS and inline SVG, no script, font or stylesheet from anywhere,
 * so it opens offline. Charts: latency histogram, throughput over time, lane depth heat maps.
 */
final class HtmlReport {
    private static final String STYLE = """
            body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222;
                   margin: 24px auto; max-width: 1000px; padding: 0 16px; }
            h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 17px; margin-top: 28px; }
            .badge { display: inline-block; padding: 2px 10px; border-radius: 4px; color: #fff; font-size: 14px;
                     vertical-align: middle; }
            .PASS { background: #2e7d32; } .FAIL { background: #c62828; }
            .cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 16px 0; }
            .card { border: 1px solid #ddd; border-radius: 6px; padding: 8px 14px; min-width: 120px; }
            .card b { display: block; font-size: 20px; } .card span { color: #666; font-size: 12px; }
            table { border-collapse: collapse; margin: 8px 0; }
            th, td { padding: 3px 9px; border-bottom: 1px solid #e3e3e3; text-align: right; white-space: nowrap; }
            th { background: #f5f5f5; } .l { text-align: left; } td.wrap { white-space: normal; }
            pre { background: #f6f6f6; padding: 10px; overflow: auto; font-size: 12px; }
            svg { max-width: 100%; height: auto; } svg text { font-size: 11px; fill: #444; }
            .muted { color: #666; font-size: 12px; } .scroll { overflow-x: auto; }
            """;

    private final StringBuilder out = new StringBuilder();
    private final Report report;

    private HtmlReport(Report report) {
        this.report = report;
    }

    static String render(Report report) {
        return new HtmlReport(report).render();
    }

    private String render() {
        String status = report.passed() ? "PASS" : "FAIL";
        out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append("<title>")
                .append(esc("Lanes report: " + report.scenario + " (" + status + ")"))
                .append("</title>\n<style>\n")
                .append(STYLE)
                .append("</style>\n</head>\n<body>\n");
        out.append("<h1>")
                .append(esc(report.title))
                .append(" <span class=\"badge ")
                .append(status)
                .append("\">")
                .append(status)
                .append("</span></h1>\n<ul>\n");
        report.setup.forEach(line -> out.append("<li>").append(esc(line)).append("</li>\n"));
        out.append("<li>")
                .append(esc("scenario " + report.scenario + ", strategy " + report.strategy))
                .append("</li>\n</ul>\n");
        cards();
        invariants();
        latency();
        out.append("<h2>Throughput over time</h2>\n<p class=\"muted\">")
                .append(esc(report.unit))
                .append(" settled per second between samples.</p>\n")
                .append(Charts.throughput(report.timeline, report.unit))
                .append('\n');
        out.append("<h2>Lane depth</h2>\n<p class=\"muted\">Per dispatcher and aggregate type, sampled over time:"
                        + " its deepest lane, and the exchanges it holds (queued and running). Hover a cell for its"
                        + " value.</p>\n")
                .append(Charts.heatMap(report.timeline, "deepest lane", Timeline.Sample::deepest))
                .append('\n')
                .append(Charts.heatMap(report.timeline, "queued", Timeline.Sample::queued))
                .append('\n');
        aggregates();
        shutdown();
        options();
        out.append("</body>\n</html>\n");
        return out.toString();
    }

    private void cards() {
        out.append("<div class=\"cards\">\n");
        card(String.format(Locale.ROOT, "%,.0f", report.throughputPerSecond()), report.unit + " per second");
        card(String.format(Locale.ROOT, "%,d / %,d", report.handled, report.messages), "handled / " + report.unit);
        card(TextReport.micros(report.latency.p50()) + " us", "latency p50");
        card(TextReport.micros(report.latency.p99()) + " us", "latency p99");
        card(TextReport.micros(report.latency.p999()) + " us", "latency p99.9");
        Report.Latency others = report.otherIds;
        if (others != null) {
            card(TextReport.micros(others.p99()) + " us", "other ids p99");
        }
        card(String.format(Locale.ROOT, "%,d", report.lost), "lost");
        card(String.format(Locale.ROOT, "%,d", report.parked), "parked");
        card(String.format(Locale.ROOT, "%,d", report.liveThreadsPeak), "live threads (peak)");
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
        out.append("<h2>Invariants</h2>\n<table>\n<tr><th class=\"l\">status</th><th class=\"l\">invariant</th>"
                + "<th class=\"l\">detail</th></tr>\n");
        for (Report.Invariant invariant : report.invariants) {
            out.append("<tr><td class=\"l\"><span class=\"badge ")
                    .append(invariant.status())
                    .append("\">")
                    .append(invariant.status())
                    .append("</span></td><td class=\"l\">")
                    .append(esc(invariant.name()))
                    .append("</td><td class=\"l wrap\">")
                    .append(esc(invariant.detail()))
                    .append("</td></tr>\n");
        }
        out.append("</table>\n");
    }

    private void latency() {
        out.append("<h2>Latency</h2>\n");
        Histogram histogram = report.latencyHistogram;
        if (histogram != null) {
            out.append(Charts.latencyHistogram(
                            histogram,
                            List.of(
                                    new Charts.Marker("p50", report.latency.p50()),
                                    new Charts.Marker("p99", report.latency.p99()),
                                    new Charts.Marker("p99.9", report.latency.p999()))))
                    .append('\n');
        }
        out.append("<table>\n<tr><th class=\"l\">stage</th><th>count</th><th>p50 us</th><th>p90 us</th>"
                + "<th>p99 us</th><th>p99.9 us</th><th>max us</th></tr>\n");
        report.stages.forEach(this::latencyRow);
        if (report.stages.size() != 1) {
            latencyRow(report.latency);
        }
        out.append("</table>\n");
    }

    private void latencyRow(Report.Latency latency) {
        out.append("<tr><td class=\"l\">").append(esc(latency.name())).append("</td>");
        cell(String.format(Locale.ROOT, "%,d", latency.count()));
        cell(TextReport.micros(latency.p50()));
        cell(TextReport.micros(latency.p90()));
        cell(TextReport.micros(latency.p99()));
        cell(TextReport.micros(latency.p999()));
        cell(TextReport.micros(latency.max()));
        out.append("</tr>\n");
    }

    private void aggregates() {
        out.append("<h2>Aggregates</h2>\n<p class=\"muted\">Queue wait: admission to the first handler call. Handler:"
                        + " each attempt. Lanes, deepest lane and skew: peaks of the samples. Hottest ids: sampled"
                        + " estimates.</p>\n")
                .append(
                        "<div class=\"scroll\"><table>\n<tr><th class=\"l\">dispatcher</th><th class=\"l\">aggregate</th><th>handled</th>"
                                + "<th>retried</th><th>parked</th><th>rejected</th><th>queue p50 us</th><th>queue p99 us</th>"
                                + "<th>handler p50 us</th><th>handler p99 us</th><th>lanes</th><th>deepest</th><th>skew</th>"
                                + "<th class=\"l\">hottest ids</th></tr>\n");
        for (Report.AggregateRow row : report.aggregates) {
            out.append("<tr><td class=\"l\">")
                    .append(esc(row.dispatcher()))
                    .append("</td><td class=\"l\">")
                    .append(esc(row.aggregate()))
                    .append("</td>");
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
            out.append("<td class=\"l\">")
                    .append(esc(TextReport.hottest(row.hottest())))
                    .append("</td></tr>\n");
        }
        out.append("</table></div>\n");
    }

    private void shutdown() {
        ShutdownReport shutdown = report.shutdown;
        out.append("<h2>Shutdown</h2>\n<pre>")
                .append(esc(shutdown == null ? "The stop did not end in time." : shutdown.toString()))
                .append("</pre>\n");
        out.append("<p>")
                .append(esc(String.format(
                        Locale.ROOT,
                        "Retried %,d, parked %,d, handed back %,d. Live threads: %,d at peak, %,d after the stop.",
                        report.retried,
                        report.parked,
                        report.rejected,
                        report.liveThreadsPeak,
                        report.liveThreadsAfter)))
                .append("</p>\n");
        if (!report.notes.isEmpty()) {
            out.append("<ul>\n");
            report.notes.forEach(note -> out.append("<li>").append(esc(note)).append("</li>\n"));
            out.append("</ul>\n");
        }
    }

    private void options() {
        out.append("<h2>Options and outcomes</h2>\n<table>\n");
        report.options.forEach((name, value) -> out.append("<tr><td class=\"l\">")
                .append(esc(name))
                .append("</td><td class=\"l\">")
                .append(esc(value))
                .append("</td></tr>\n"));
        report.outcomes.forEach((name, count) -> out.append("<tr><td class=\"l\">")
                .append(esc(name))
                .append("</td><td class=\"l\">")
                .append(String.format(Locale.ROOT, "%,d", count))
                .append("</td></tr>\n"));
        out.append("</table>\n");
    }

    private void cell(String text) {
        out.append("<td>").append(esc(text)).append("</td>");
    }

    private static String esc(String text) {
        return Html.escape(text);
    }
}
