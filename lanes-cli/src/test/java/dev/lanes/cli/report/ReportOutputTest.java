package dev.lanes.cli.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanes.cli.ReportAssertions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The outcome follows the invariants; the reports render whatever a run found, escaped. */
class ReportOutputTest {
    private static final RunInfo RUN = new RunInfo("Acme 17.0.99", "Acme VM", 3, "2030-01-02T03:04:05Z", "abc1234");

    private static Report report(boolean passes) {
        Histogram latency = new Histogram(3);
        for (int i = 1; i <= 1000; i++) {
            latency.recordValue(i * 1_000L);
        }
        Report.Latency all = Report.Latency.of("all", latency);
        return new Report(
                RUN,
                new Report.Setup(
                        "demo",
                        "keyed",
                        "A <b>bold</b> & \"quoted\" run",
                        "commands",
                        List.of("setup " + "x".repeat(300)),
                        Map.of("accounts", "10")),
                new Report.Load(10, 10, 1_000_000_000L),
                new Report.LatencyReport(List.of(all), all, null, null, Report.Distribution.of(latency)),
                new Report.Counts(Map.of("ok", 10L), 0, 0, 0, 0, 0, null),
                List.of(),
                new Report.Threads(12, 10),
                List.of(
                        new Report.Invariant("money conserved", true, "expected 1 = store 1"),
                        new Report.Invariant("nothing lost", passes, passes ? "0 missing" : "1 missing <x>")),
                null,
                new Timeline(
                        List.of("CommandDispatcher bank.account"),
                        List.of(
                                new Timeline.Sample(0, 0, 10, new int[] {0}, new int[] {0}),
                                new Timeline.Sample(200, 5, 11, new int[] {7}, new int[] {3}),
                                new Timeline.Sample(400, 10, 11, new int[] {0}, new int[] {0}))),
                List.of());
    }

    private static boolean emit(Report report, StringWriter out, Path json, Path html) {
        return ReportOutput.emit(
                report, json, html, new PrintWriter(out, true), new PrintWriter(new StringWriter(), true));
    }

    private static boolean emit(Report report, StringWriter out) {
        return ReportOutput.emit(
                report, null, null, new PrintWriter(out, true), new PrintWriter(new StringWriter(), true));
    }

    @Test
    void aFailedInvariantIsReportedAsNotPassed() {
        StringWriter out = new StringWriter();

        boolean passed = emit(report(false), out);

        assertThat(passed).isFalse();
        assertThat(out.toString())
                .contains("FAIL  nothing lost")
                .contains("PASS  money conserved")
                .contains("Result        FAIL (1 of 2 invariants passed)");
    }

    @Test
    void allInvariantsPassingIsReportedAsPassed() {
        assertThat(emit(report(true), new StringWriter())).isTrue();
    }

    @Test
    void theHtmlReportEscapesTextDrawsItsChartsInlineAndNamesTheRun(@TempDir Path dir) throws Exception {
        Path html = dir.resolve("report.html");
        Path json = dir.resolve("report.json");

        emit(report(false), new StringWriter(), json, html);

        String page = Files.readString(html, StandardCharsets.UTF_8);
        assertThat(page)
                .contains("A &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot; run")
                .contains("1 missing &lt;x&gt;")
                .doesNotContain("<b>bold")
                .contains("aria-label=\"Latency histogram\"")
                .contains("aria-label=\"Throughput over time\"")
                .contains("heat map")
                .contains("class=\"badge FAIL\"")
                .contains("Acme 17.0.99 (Acme VM)")
                .contains("2030-01-02T03:04:05Z")
                .contains("abc1234");
        JsonNode parsed = ReportAssertions.readReport(json);
        assertThat(parsed.get("passed").asBoolean()).isFalse();
        assertThat(parsed.get("shutdown").get("durationMillis").isNull()).isTrue();
    }

    @Test
    void theHtmlReportsTablesFitThePageAndEveryChartHasATitleAndAxisLabels(@TempDir Path dir) throws Exception {
        Path html = dir.resolve("report.html");

        emit(report(true), new StringWriter(), dir.resolve("report.json"), html);

        String page = Files.readString(html, StandardCharsets.UTF_8);
        assertThat(page)
                .contains("max-width: 1000px")
                .contains(".table { max-width: 100%; overflow-x: auto;")
                .contains("overflow-wrap: anywhere");
        assertThat(page.split("<table>", -1)).hasSize(page.split("<div class=\"table\"><table>", -1).length);
        List<String> charts = List.of(page.split("<svg", -1)).subList(1, page.split("<svg", -1).length);
        assertThat(charts).hasSize(4);
        assertThat(charts).allSatisfy(chart -> assertThat(chart).contains("class=\"chart-title\""));
        assertThat(charts.get(0))
                .contains("Latency histogram:")
                .contains(">messages<")
                .contains("latency (log scale)");
        assertThat(charts.get(1))
                .contains("Throughput over time:")
                .contains(">commands/s<")
                .contains("time since the load started");
        assertThat(charts.get(2))
                .contains("Deepest lane heat map:")
                .contains("dispatcher and aggregate type")
                .contains("time since the load started");
        assertThat(charts.get(3))
                .contains("Queued heat map:")
                .contains("dispatcher and aggregate type")
                .contains("time since the load started");
    }

    @Test
    void theJsonReportHasTheRunsMetadataAndTheStableFields(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("report.json");

        emit(report(true), new StringWriter(), json, dir.resolve("report.html"));

        JsonNode parsed = ReportAssertions.readReport(json);
        assertThat(parsed.get("run").get("jdk").asText()).isEqualTo("Acme 17.0.99");
        assertThat(parsed.get("run").get("processors").asInt()).isEqualTo(3);
        assertThat(parsed.get("run").get("startedAt").asText()).isEqualTo("2030-01-02T03:04:05Z");
        assertThat(parsed.get("run").get("commit").asText()).isEqualTo("abc1234");
        assertThat(ReportAssertions.fieldNames(parsed))
                .startsWith("scenario", "strategy", "passed", "messages", "handled", "durationMillis");
        assertThat(parsed.get("latencyMicros").get("p50").asDouble())
                .isEqualTo(500.0, org.assertj.core.api.Assertions.within(1.0));
        assertThat(parsed.get("invariants").get(0).get("status").asText()).isEqualTo("PASS");
        assertThat(parsed.get("otherIdsLatencyMicros").isNull()).isTrue();
    }

    @Test
    void theCommitIsUnknownWhenTheBuildHadNoGitRepository() {
        assertThat(RunInfo.commitOf("unknown")).isEqualTo("unknown");
        assertThat(RunInfo.commitOf("")).isEqualTo("unknown");
        assertThat(RunInfo.commitOf("${lanes.commit}")).isEqualTo("unknown");
        assertThat(RunInfo.commitOf("abc1234")).isEqualTo("abc1234");
        assertThat(RunInfo.buildCommit()).matches("[0-9a-f]{7,40}|unknown");
    }
}
