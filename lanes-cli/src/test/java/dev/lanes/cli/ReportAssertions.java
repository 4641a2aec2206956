package dev.lanes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Reads a JSON report and checks the stable fields every report must have. */
final class ReportAssertions {
    private ReportAssertions() {}

    static Map<String, Object> readReport(Path file) throws IOException {
        return MiniJson.object(MiniJson.parse(Files.readString(file, StandardCharsets.UTF_8)));
    }

    /** Every stable field exists with its type; every invariant passed. */
    static void assertStableFieldsAndAllPass(Map<String, Object> report, String scenario) {
        assertThat(report)
                .containsKeys(
                        "scenario",
                        "strategy",
                        "messages",
                        "handled",
                        "throughputPerSec",
                        "latencyMicros",
                        "otherIdsLatencyMicros",
                        "orderingViolations",
                        "lost",
                        "parked",
                        "liveThreads",
                        "invariants",
                        "shutdown");
        assertThat(report.get("scenario")).isEqualTo(scenario);
        assertThat(report.get("strategy")).isIn("keyed", "hashed");
        assertThat(number(report, "messages")).isPositive();
        assertThat(number(report, "handled")).isPositive();
        assertThat(number(report, "throughputPerSec")).isPositive();
        assertThat(number(report, "orderingViolations")).isZero();
        assertThat(number(report, "lost")).isZero();
        assertThat(number(report, "parked")).isZero();
        assertThat(number(report, "liveThreads")).isPositive();
        Map<String, Object> latency = MiniJson.object(report.get("latencyMicros"));
        assertThat(latency).containsKeys("p50", "p99", "p999");
        assertThat(number(latency, "p50")).isPositive();
        assertThat(number(latency, "p99")).isGreaterThanOrEqualTo(number(latency, "p50"));
        assertThat(number(latency, "p999")).isGreaterThanOrEqualTo(number(latency, "p99"));
        if (scenario.equals("hot-key")) {
            assertThat(number(MiniJson.object(report.get("otherIdsLatencyMicros")), "p99"))
                    .isPositive();
        } else {
            assertThat(report.get("otherIdsLatencyMicros")).isSameAs(MiniJson.NULL);
        }
        List<Object> invariants = MiniJson.array(report.get("invariants"));
        assertThat(invariants).isNotEmpty();
        for (Object each : invariants) {
            Map<String, Object> invariant = MiniJson.object(each);
            assertThat(invariant).containsKeys("name", "status");
            assertThat(invariant.get("status"))
                    .as("%s: %s", invariant.get("name"), invariant.get("detail"))
                    .isEqualTo("PASS");
        }
        Map<String, Object> shutdown = MiniJson.object(report.get("shutdown"));
        assertThat(shutdown).containsKeys("graceful", "forced", "durationMillis");
        assertThat(number(shutdown, "durationMillis")).isNotNegative();
    }

    static List<String> invariantNames(Map<String, Object> report) {
        return MiniJson.array(report.get("invariants")).stream()
                .map(each -> (String) MiniJson.object(each).get("name"))
                .toList();
    }

    static double number(Map<String, Object> object, String field) {
        Object value = object.get(field);
        assertThat(value).as(field).isInstanceOf(Double.class);
        return (Double) value;
    }
}
