package dev.lanes.cli;

import static dev.lanes.cli.ReportAssertions.number;
import static dev.lanes.cli.ReportAssertions.readReport;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.testsupport.TestKafka;
import dev.lanes.testsupport.TestPostgres;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * PROCESSED commands per second through Kafka and PostgreSQL, with 1 and 3 instances in one process: {@code lanes
 * bench --scenario command --bus kafka --store postgres} run three times each against the in-process KRaft broker and
 * an embedded PostgreSQL, printing each run and the median. Run it with:
 *
 * <pre>
 * nice -n 15 mvn -B -pl lanes-cli -am verify -Pstress -Dtest=KafkaPostgresBenchmarkTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
@Tag("stress")
class KafkaPostgresBenchmarkTest {
    private static final int RUNS = 3;
    private static final String COMMANDS = "10000";
    /** One database for every run, empty at the first (the CLI migrates it), on the test JVM's embedded server. */
    private static final String DATABASE = TestPostgres.emptyDatabase();

    @ParameterizedTest(name = "{0} instance(s)")
    @ValueSource(ints = {1, 3})
    void processedCommandsPerSecondThroughKafkaAndPostgres(int instances, @TempDir Path dir) throws IOException {
        List<Double> rates = new ArrayList<>();
        for (int run = 1; run <= RUNS; run++) {
            Path json = dir.resolve("run-" + run + ".json");
            Cli.Result result = Cli.run(
                    "bench",
                    "--scenario",
                    "command",
                    "--bus",
                    "kafka",
                    "--bootstrap-servers",
                    TestKafka.bootstrapServers(),
                    "--instances",
                    Integer.toString(instances),
                    "--partitions",
                    "12",
                    "--store",
                    "postgres",
                    "--jdbc-url",
                    DATABASE,
                    "--warmup",
                    "0s", // the whole run, as in docs/benchmarks.md
                    "--messages",
                    COMMANDS,
                    "--aggregates",
                    "1000",
                    "--clients",
                    "64",
                    "-q",
                    "--json",
                    json.toString());
            assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
            double rate = number(readReport(json), "throughputPerSec");
            rates.add(rate);
            System.out.printf(
                    Locale.ROOT, "kafka+postgres %d instance(s), run %d: %.0f commands/s%n", instances, run, rate);
        }
        List<Double> sorted = rates.stream().sorted().toList();
        System.out.printf(
                Locale.ROOT,
                "kafka+postgres %d instance(s): median %.0f PROCESSED commands/s of %s (%s, %s, load %s)%n",
                instances,
                sorted.get(RUNS / 2),
                rates,
                System.getProperty("java.vm.name"),
                System.getProperty("java.runtime.version"),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
}
