package dev.lanes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exit code follows the invariants; the reports render whatever a run found, escaped. */
class ReportOutputTest {

    private static Report report(boolean passes) {
        Report report = new Report("demo", "keyed");
        report.title = "A <b>bold</b> & \"quoted\" run";
        report.messages = 10;
        report.handled = 10;
        report.loadNanos = 1_000_000_000L;
        Histogram latency = new Histogram(3);
        for (int i = 1; i <= 1000; i++) {
            latency.recordValue(i * 1_000L);
        }
        report.latencyHistogram = latency;
        report.latency = Report.Latency.of("all", latency);
        report.stages.add(report.latency);
        report.timeline = new Timeline(
                List.of("CommandDispatcher bank.account"),
                List.of(
                        new Timeline.Sample(0, 0, 10, new int[] {0}, new int[] {0}),
                        new Timeline.Sample(200, 5, 11, new int[] {7}, new int[] {3}),
                        new Timeline.Sample(400, 10, 11, new int[] {0}, new int[] {0})));
        report.check("money conserved", true, "expected 1 = store 1");
        report.check("nothing lost", passes, passes ? "0 missing" : "1 missing <x>");
        return report;
    }

    private static int emit(Report report, ReportOptions options, StringWriter out) {
        return ReportOutput.emit(
                report, options, new PrintWriter(out, true), new PrintWriter(new StringWriter(), true));
    }

    @Test
    void aFailedInvariantExitsWithOne() {
        StringWriter out = new StringWriter();

        int exitCode = emit(report(false), new ReportOptions(), out);

        assertThat(exitCode).isEqualTo(1);
        assertThat(out.toString())
                .contains("FAIL  nothing lost")
                .contains("PASS  money conserved")
                .contains("Result        FAIL (1 of 2 invariants passed)");
    }

    @Test
    void allInvariantsPassingExitsWithZero() {
        assertThat(emit(report(true), new ReportOptions(), new StringWriter())).isZero();
    }

    @Test
    void theHtmlReportEscapesTextAndDrawsItsChartsInline(@TempDir Path dir) throws Exception {
        ReportOptions options = new ReportOptions();
        options.html = dir.resolve("report.html");
        options.json = dir.resolve("report.json");

        emit(report(false), options, new StringWriter());

        String html = Files.readString(options.html, StandardCharsets.UTF_8);
        assertThat(html)
                .contains("A &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot; run")
                .contains("1 missing &lt;x&gt;")
                .doesNotContain("<b>bold")
                .contains("aria-label=\"Latency histogram\"")
                .contains("aria-label=\"Throughput over time\"")
                .contains("heat map")
                .contains("class=\"badge FAIL\"");
        Object json = MiniJson.parse(Files.readString(options.json, StandardCharsets.UTF_8));
        assertThat(MiniJson.object(json).get("passed")).isEqualTo(false);
    }
}
