package dev.lanes.cli;

import static dev.lanes.cli.ReportAssertions.assertStableFieldsAndAllPass;
import static dev.lanes.cli.ReportAssertions.invariantNames;
import static dev.lanes.cli.ReportAssertions.number;
import static dev.lanes.cli.ReportAssertions.readReport;
import static dev.lanes.cli.ReportAssertions.texts;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanes.testsupport.TestPostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bank end to end, small: every invariant passes and the reports have what they promise. */
class DemoTest {

    @Test
    void aShortDemoPassesEveryInvariantAndWritesTheJsonAndHtmlReports(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("demo.json");
        Path html = dir.resolve("demo.html");

        Cli.Result result = Cli.run(
                "demo",
                "--accounts",
                "40",
                "--clients",
                "8",
                "--commands",
                "3000",
                "--sample-interval",
                "100ms",
                "--json",
                json.toString(),
                "--html",
                html.toString());

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        assertThat(result.out())
                .contains("Lanes demo")
                .contains("PASS  money conserved")
                .contains("Lanes runtime shutdown: graceful")
                .contains("Result        PASS")
                .contains("Note          measured from a cold JVM")
                .doesNotContain("\r");
        JsonNode report = readReport(json);
        assertStableFieldsAndAllPass(report, "demo");
        assertThat(number(report, "messages")).isEqualTo(3000);
        assertThat(invariantNames(report))
                .contains(
                        "money conserved",
                        "versions gapless",
                        "per-account order",
                        "projection = replay",
                        "nothing lost",
                        "every command answered",
                        "graceful stop");
        JsonNode shutdown = report.get("shutdown");
        assertThat(shutdown.get("graceful").asBoolean()).isTrue();
        assertThat(shutdown.get("forced").asBoolean()).isFalse();
        assertThat(texts(report.get("stages"), "name")).contains("SENT", "PROCESSED", "PROJECTED");
        assertThat(texts(report.get("aggregates"), "dispatcher"))
                .contains("CommandDispatcher", "BalanceProjection", "TransferSaga", "Snapshotter");

        String page = Files.readString(html, StandardCharsets.UTF_8);
        assertThat(page)
                .startsWith("<!DOCTYPE html>")
                .contains("<svg")
                .contains("Latency histogram")
                .contains("Throughput over time")
                .contains("heat map")
                .contains("PASS")
                .doesNotContain("<script")
                .doesNotContain("<link")
                .doesNotContain("src=")
                .doesNotContain("@import")
                .endsWith("</html>\n");
    }

    @Test
    void onPostgresWithoutKafkaTheTitlesNameTheStoreAndTheBusesUsed() {
        String database = TestPostgres.emptyDatabase();

        Cli.Result demo = Cli.run(
                "demo",
                "--store",
                "postgres",
                "--jdbc-url",
                database,
                "--accounts",
                "10",
                "--clients",
                "2",
                "--commands",
                "100",
                "-q");
        Cli.Result bench = Cli.run(
                "bench",
                "--scenario",
                "command",
                "--store",
                "postgres",
                "--jdbc-url",
                database,
                "--aggregates",
                "10",
                "--clients",
                "2",
                "--messages",
                "100",
                "--warmup",
                "0s",
                "-q");

        assertThat(demo.exitCode()).as(demo.out() + demo.err()).isZero();
        assertThat(demo.out().lines().findFirst())
                .hasValue("Lanes demo: the bank end to end on PostgreSQL and the in-memory buses");
        assertThat(bench.exitCode()).as(bench.out() + bench.err()).isZero();
        assertThat(bench.out().lines().findFirst())
                .hasValue("Lanes bench: the command path (gateway, command bus, command dispatcher, store) on"
                        + " PostgreSQL and the in-memory buses");
    }

    @Test
    void aWarmedUpDemoSaysNothingOfAColdJvm() {
        Cli.Result result =
                Cli.run("demo", "--accounts", "10", "--clients", "4", "--commands", "300", "--warmup", "100ms", "-q");

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        assertThat(result.out()).contains("Result        PASS").doesNotContain("cold JVM");
    }

    @Test
    void quietPrintsOnlyTheReport() {
        Cli.Result result = Cli.run(
                "demo", "--accounts", "10", "--clients", "4", "--commands", "300", "--strategy", "hashed", "-q");

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        assertThat(result.out().lines().findFirst())
                .hasValue("Lanes demo: the bank end to end on the in-memory event store and buses");
        assertThat(result.out()).contains("strategy hashed");
    }

    @Test
    void anOverloadedDemoThroughATinyEventBusAndTightEventLanesStopsGracefullyWithEveryInvariant(@TempDir Path dir)
            throws Exception {
        Path json = dir.resolve("overload.json");

        // the deadlock: a saga, an event bus of 8 per consumer group, event lanes of 4 (64 per processor)
        Cli.Result result = Cli.run(
                "demo",
                "--accounts",
                "50",
                "--clients",
                "2000",
                "--duration",
                "3s",
                "--event-bus-budget",
                "8",
                "--event-lane-bounds",
                "4/64",
                "--json",
                json.toString(),
                "-q");

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        assertThat(result.out()).contains("Lanes runtime shutdown: graceful").contains(", 0 not settled)");
        JsonNode report = readReport(json);
        assertStableFieldsAndAllPass(report, "demo");
        assertThat(report.get("shutdown").get("graceful").asBoolean()).isTrue();
        assertThat(number(report, "messages"))
                .as("the clients sent under overload")
                .isGreaterThan(2000);
    }
}
