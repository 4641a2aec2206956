package dev.lanes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads a JSON report and checks the stable fields every report must have. */
public final class ReportAssertions {
    private ReportAssertions() {}

    public static JsonNode readReport(Path file) throws IOException {
        JsonNode report = JsonMapper.builder().build().readTree(file.toFile());
        assertThat(report.isObject()).as("a JSON object in %s", file).isTrue();
        return report;
    }

    /** Every stable field exists with its type; every invariant passed. */
    public static void assertStableFieldsAndAllPass(JsonNode report, String scenario) {
        assertThat(fieldNames(report))
                .contains(
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
                        "shutdown",
                        "run");
        assertThat(report.get("scenario").asText()).isEqualTo(scenario);
        assertThat(report.get("strategy").asText()).isIn("keyed", "hashed");
        assertThat(number(report, "messages")).isPositive();
        assertThat(number(report, "handled")).isPositive();
        assertThat(number(report, "throughputPerSec")).isPositive();
        assertThat(number(report, "orderingViolations")).isZero();
        assertThat(number(report, "lost")).isZero();
        assertThat(number(report, "parked")).isZero();
        assertThat(number(report, "liveThreads")).isPositive();
        JsonNode latency = report.get("latencyMicros");
        assertThat(fieldNames(latency)).contains("p50", "p99", "p999");
        assertThat(number(latency, "p50")).isPositive();
        assertThat(number(latency, "p99")).isGreaterThanOrEqualTo(number(latency, "p50"));
        assertThat(number(latency, "p999")).isGreaterThanOrEqualTo(number(latency, "p99"));
        if (scenario.equals("hot-key")) {
            assertThat(number(report.get("otherIdsLatencyMicros"), "p99")).isPositive();
        } else {
            assertThat(report.get("otherIdsLatencyMicros").isNull()).isTrue();
        }
        JsonNode invariants = report.get("invariants");
        assertThat(invariants.isArray() && !invariants.isEmpty()).isTrue();
        for (JsonNode invariant : invariants) {
            assertThat(fieldNames(invariant)).contains("name", "status");
            assertThat(invariant.get("status").asText())
                    .as("%s: %s", invariant.get("name"), invariant.get("detail"))
                    .isEqualTo("PASS");
        }
        JsonNode shutdown = report.get("shutdown");
        assertThat(fieldNames(shutdown)).contains("graceful", "forced", "durationMillis");
        assertThat(number(shutdown, "durationMillis")).isNotNegative();
        assertRunMetadata(report.get("run"));
    }

    /** JDK, processors, start time in UTC and the commit (a hash, or "unknown" outside a git clone). */
    public static void assertRunMetadata(JsonNode run) {
        assertThat(run.get("jdk").asText()).contains(System.getProperty("java.version"));
        assertThat(number(run, "processors")).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(run.get("startedAt").asText()).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z");
        assertThat(run.get("commit").asText()).matches("[0-9a-f]{7,40}|unknown");
    }

    public static List<String> invariantNames(JsonNode report) {
        return texts(report.get("invariants"), "name");
    }

    /** The text field {@code field} of each element of {@code array}. */
    public static List<String> texts(JsonNode array, String field) {
        List<String> texts = new ArrayList<>();
        array.forEach(element -> texts.add(element.get(field).asText()));
        return texts;
    }

    public static double number(JsonNode object, String field) {
        JsonNode value = object.get(field);
        assertThat(value).as(field).isNotNull();
        assertThat(value.isNumber()).as("%s is a number: %s", field, value).isTrue();
        return value.asDouble();
    }

    public static List<String> fieldNames(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
