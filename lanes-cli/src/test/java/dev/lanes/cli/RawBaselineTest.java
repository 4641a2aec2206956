package dev.lanes.cli;

import static dev.lanes.cli.ReportAssertions.readReport;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lanes.cli.command.ExitCode;
import dev.lanes.testsupport.TestKafka;
import dev.lanes.testsupport.TestPostgres;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lanes bench --raw-baseline}: the backends' own rates, then Lanes', side by side in one run against the
 * in-process broker and the embedded PostgreSQL (tiny durations: the figures are there, their size is not asserted).
 */
class RawBaselineTest {

    @Test
    void theRawRatesOfPostgresAndKafkaAndLanesRatioToEachAreInTheReport(@TempDir Path dir) throws Exception {
        Path json = dir.resolve("raw.json");

        Cli.Result result = Cli.run(
                "bench",
                "--scenario",
                "command",
                "--raw-baseline",
                "300ms",
                "--bus",
                "kafka",
                "--bootstrap-servers",
                TestKafka.bootstrapServers(),
                "--partitions",
                "2",
                "--store",
                "postgres",
                "--jdbc-url",
                TestPostgres.emptyDatabase(),
                "--warmup",
                "0s",
                "--messages",
                "200",
                "--aggregates",
                "20",
                "--clients",
                "4",
                "-q",
                "--json",
                json.toString());

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        assertThat(result.out())
                .containsPattern("raw baseline, PostgreSQL: [\\d,]+ rows/s \\([\\d,]+ in [\\d.]+ s; multi-row INSERT,"
                        + " 500 rows per transaction, into lanes_raw_baseline")
                .containsPattern("raw baseline, Kafka: [\\d,]+ records/s \\([\\d,]+ in [\\d.]+ s; idempotent acks=all"
                        + " producer .*, \\d+-byte records")
                .containsPattern("Lanes beside the raw baseline: [\\d,]+ commands/s = [\\d.]+% of PostgreSQL's raw"
                        + " rate \\(ratio [\\d.]+\\), [\\d.]+% of Kafka's raw rate \\(ratio [\\d.]+\\)");
        List<String> notes = new ArrayList<>();
        JsonNode report = readReport(json);
        report.get("notes").forEach(note -> notes.add(note.asText()));
        assertThat(notes)
                .anyMatch(note -> note.startsWith("raw baseline, PostgreSQL: "))
                .anyMatch(note -> note.startsWith("raw baseline, Kafka: "))
                .anyMatch(note -> note.startsWith("Lanes beside the raw baseline: "));
    }

    @Test
    void aRawBaselineWithoutABackendToMeasureIsRefused() {
        Cli.Result memory = Cli.run("bench", "--scenario", "command", "--raw-baseline", "-q");
        Cli.Result engine = Cli.run(
                "bench",
                "--scenario",
                "throughput",
                "--raw-baseline",
                "1s",
                "--store",
                "postgres",
                "--jdbc-url",
                "jdbc:postgresql://127.0.0.1:1/x");

        assertThat(memory.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(memory.err())
                .contains("--raw-baseline needs --scenario command with --store postgres or --bus kafka");
        assertThat(engine.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(engine.err()).contains("--raw-baseline needs --scenario command");
    }
}
