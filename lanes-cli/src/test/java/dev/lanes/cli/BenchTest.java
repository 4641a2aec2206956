package dev.lanes.cli;

import static dev.lanes.cli.ReportAssertions.assertStableFieldsAndAllPass;
import static dev.lanes.cli.ReportAssertions.number;
import static dev.lanes.cli.ReportAssertions.readReport;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every scenario, with small counts: the report's invariants pass and its stable fields are there. */
class BenchTest {

    @ParameterizedTest(name = "{0} lanes, {2} ids, overflow {1}")
    @CsvSource({"keyed, pause, 500", "hashed, pause, 500", "keyed, pause, 10", "keyed, reject, 10", "hashed, reject, 10"
    })
    void aStuckLaneHoldsUpOnlyItsOwnMessagesAndTheDeadlineCutsIt(
            String strategy, String overflow, String aggregates, @TempDir Path dir) throws Exception {
        Path json = dir.resolve("stuck.json");

        Cli.Result result = Cli.run(
                "bench",
                "--scenario",
                "stuck-lane",
                "--strategy",
                strategy,
                "--overflow",
                overflow,
                "--messages",
                "20000",
                "--aggregates",
                aggregates,
                "--shutdown-timeout",
                "300ms",
                "--quiet",
                "--json",
                json.toString());

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        JsonNode report = readReport(json);
        assertStableFieldsAndAllPass(report, "stuck-lane");
        double stuck = number(report, "stuckLaneMessages");
        assertThat(stuck).isPositive().isLessThan(20000);
        assertThat(number(report, "handled")).isEqualTo(20000 - stuck);
        JsonNode shutdown = report.get("shutdown");
        assertThat(shutdown.get("forced").asBoolean()).isTrue();
        assertThat(shutdown.get("graceful").asBoolean()).isFalse();
        assertThat(result.out()).contains("PASS  others handled while a lane was stuck");
    }

    @ParameterizedTest
    @CsvSource({
        "throughput, --messages, 30000, --aggregates, 1000",
        "cpu,        --messages, 2000,  --cpu-micros, 10",
        "many-types, --messages, 20000, --types,      5",
        "command,    --messages, 2000,  --warmup,     0s"
    })
    void eachScenarioPassesItsInvariants(String scenario, String option1, String value1, String option2, String value2)
            throws Exception {
        Path json = Files.createTempFile("lanes-" + scenario, ".json");
        try {
            Cli.Result result = Cli.run(
                    "bench", "--scenario", scenario, option1, value1, option2, value2, "-q", "--json", json.toString());

            assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
            JsonNode report = readReport(json);
            assertStableFieldsAndAllPass(report, scenario);
            assertThat(number(report, "handled")).isEqualTo(number(report, "messages"));
            assertThat(report.get("shutdown").get("graceful").asBoolean()).isTrue();
        } finally {
            Files.deleteIfExists(json);
        }
    }

    @Test
    void theCommandScenarioCountsOnlyTheCommandsSentAfterItsWarmupAndAuditsThemAll(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("command.json");

        Cli.Result result = Cli.run(
                "bench",
                "--scenario",
                "command",
                "--messages",
                "3000",
                "--aggregates",
                "50",
                "--warmup",
                "300ms",
                "-q",
                "--json",
                json.toString());

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        JsonNode report = readReport(json);
        assertStableFieldsAndAllPass(report, "command");
        assertThat(number(report, "messages")).isEqualTo(3000);
        assertThat(number(report, "handled")).isEqualTo(3000);
        assertThat(number(report, "warmupMessages")).as("sent while warming up").isPositive();
        assertThat(number(report, "warmupMillis")).isBetween(300.0, 5_000.0);
        assertThat(number(report.get("latencyMicros"), "count"))
                .as("latencies of the counted commands only")
                .isEqualTo(3000);
        double stored = 3000 + number(report, "warmupMessages") + 2 * 50;
        assertThat(report.get("invariants").toString())
                .as("the warm-up's commands are stored and audited too")
                .contains(String.format(java.util.Locale.ROOT, "%,.0f versions in the store", stored));
    }

    @Test
    void aTracedCommandRunSaysThatItsBatchProcessorExportedEverySpan(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("traced.json");

        Cli.Result result = Cli.run(
                "bench",
                "--scenario",
                "command",
                "--trace",
                "--messages",
                "3000",
                "--aggregates",
                "50",
                "--warmup",
                "0s",
                "-q",
                "--json",
                json.toString());

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        assertStableFieldsAndAllPass(readReport(json), "command");
        java.util.regex.Matcher counts = java.util.regex.Pattern.compile(
                        "Tracing: ([0-9,]+) sampled spans ended, ([0-9,]+) exported, ([0-9,]+) dropped")
                .matcher(result.out());
        assertThat(counts.find()).as(result.out()).isTrue();
        long ended = Long.parseLong(counts.group(1).replace(",", ""));
        assertThat(ended).as("a send and a lane span per command").isGreaterThanOrEqualTo(2 * (3000 + 50));
        assertThat(counts.group(2)).isEqualTo(counts.group(1));
        assertThat(counts.group(3)).isEqualTo("0");
    }

    @Test
    void hotKeyReportsTheOtherIdsApartAndWritesAnHtmlReport(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("hot.json");
        Path html = dir.resolve("hot.html");

        Cli.Result result = Cli.run(
                "bench",
                "--scenario",
                "hot-key",
                "--messages",
                "10000",
                "--rate",
                "20000",
                "--aggregates",
                "200",
                "--warmup",
                "100ms",
                "-q",
                "--json",
                json.toString(),
                "--html",
                html.toString());

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        JsonNode report = readReport(json);
        assertStableFieldsAndAllPass(report, "hot-key");
        JsonNode hot = report.get("hotIdLatencyMicros");
        JsonNode others = report.get("otherIdsLatencyMicros");
        assertThat(number(hot, "count") + number(others, "count"))
                .as("all but the warm-up's")
                .isBetween(6000.0, 10000.0);
        assertThat(number(hot, "max"))
                .as("the hot id's slow messages wait 2 ms")
                .isGreaterThanOrEqualTo(2000);
        assertThat(result.out()).contains("other ids").contains("hot id");
        assertThat(Files.readString(html, StandardCharsets.UTF_8))
                .contains("<svg")
                .contains("other ids p99");
    }
}
