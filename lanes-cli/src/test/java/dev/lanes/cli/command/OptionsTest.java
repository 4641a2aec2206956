package dev.lanes.cli.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.cli.Cli;
import dev.lanes.cli.LanesCli;
import dev.lanes.cli.engine.Scenario;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/** Bad options get one line naming the bad value and a hint to --help, not the usage, and exit with 2; nothing runs. */
class OptionsTest {

    @Test
    void aPostgresStoreNeedsAJdbcUrlAndAUrlNeedsThePostgresStore() {
        Cli.Result noUrl = Cli.run("demo", "--store", "postgres");
        assertThat(noUrl.exitCode()).isEqualTo(2);
        assertThat(noUrl.err())
                .contains("--store postgres needs --jdbc-url")
                .contains("Try 'lanes demo --help' for more information.")
                .doesNotContain("Usage:");

        Cli.Result noStore = Cli.run("bench", "--scenario", "command", "--jdbc-url", "jdbc:postgresql://h:1/d");
        assertThat(noStore.exitCode()).isEqualTo(2);
        assertThat(noStore.err()).contains("--jdbc-url 'jdbc:postgresql://h:1/d' needs --store postgres");
    }

    @Test
    void theAppendBatchSizeNeedsThePostgresStoreAndARangeValue() {
        Cli.Result inMemory = Cli.run("bench", "--scenario", "command", "--append-batch-size", "256");
        assertThat(inMemory.exitCode()).isEqualTo(2);
        assertThat(inMemory.err()).contains("--append-batch-size needs --store postgres");

        Cli.Result outOfRange = Cli.run(
                "bench",
                "--scenario",
                "command",
                "--store",
                "postgres",
                "--jdbc-url",
                "jdbc:postgresql://h:1/d",
                "--append-batch-size",
                "0");
        assertThat(outOfRange.exitCode()).isEqualTo(2);
        assertThat(outOfRange.err())
                .contains("Invalid value for option '--append-batch-size': appendBatchSize must be between 1 and"
                        + " 65535: 0")
                .contains("Try 'lanes bench --help' for more information.");
        assertThat(outOfRange.out()).isEmpty();
    }

    @Test
    void anUnknownScenarioIsNamedWithTheValidOnes() {
        Cli.Result result = Cli.run("bench", "--scenario", "sideways");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err())
                .contains("Invalid value for option '--scenario'")
                .contains("'sideways'")
                .contains("hot-key")
                .contains("Try 'lanes bench --help' for more information.")
                .doesNotContain("Usage:");
        assertThat(result.out()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({"bench,--scenario,throughput", "demo,--accounts,10"})
    void anUnknownStrategyIsNamed(String command, String option, String value) {
        Cli.Result result = Cli.run(command, option, value, "--strategy", "diagonal");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err())
                .contains("Invalid value for option '--strategy'")
                .contains("'diagonal'")
                .contains("Try 'lanes " + command + " --help' for more information.")
                .doesNotContain("Usage:");
    }

    @ParameterizedTest
    @CsvSource({
        "demo,--accounts,0",
        "demo,--clients,-3",
        "demo,--commands,0",
        "bench,--messages,0",
        "bench,--aggregates,-5",
        "bench,--types,0",
        "bench,--cpu-micros,-1",
        "bench,--clients,0",
        "bench,--rate,-1",
        "bench,--messages,many",
        "bench,--warmup,-1s"
    })
    void aNonPositiveOrNonNumericCountIsNamed(String command, String option, String value) {
        Cli.Result result = command.equals("bench")
                ? Cli.run("bench", "--scenario", "throughput", option, value)
                : Cli.run("demo", option, value);

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err())
                .contains("Invalid value for option '" + option + "'")
                .contains("'" + value + "'")
                .contains("Try 'lanes " + command + " --help' for more information.")
                .doesNotContain("Usage:");
    }

    @ParameterizedTest
    @CsvSource({"64/4", "4", "0/64", "a/b"})
    void badEventLaneBoundsAreNamed(String bounds) {
        Cli.Result result = Cli.run("demo", "--event-lane-bounds", bounds);

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err())
                .contains("'--event-lane-bounds'")
                .contains("Try 'lanes demo --help' for more information.")
                .doesNotContain("Usage:");
    }

    @ParameterizedTest
    @CsvSource({"0s", "-2s", "soon", "10 parsecs"})
    void aBadDurationIsNamed(String duration) {
        Cli.Result result = Cli.run("demo", "--duration", duration);

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("'--duration'").contains("'" + duration + "'");
    }

    @Test
    void aDurationAndACountAreMutuallyExclusive() {
        Cli.Result result = Cli.run("demo", "--duration", "1s", "--commands", "100");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("mutually exclusive");
    }

    @Test
    void theScenarioIsRequired() {
        Cli.Result result = Cli.run("bench");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("Missing required option: '--scenario=SCENARIO'");
    }

    @Test
    void hotKeyNeedsAnotherIdThanTheHotOne() {
        Cli.Result result = Cli.run("bench", "--scenario", "hot-key", "--aggregates", "1");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("'--aggregates'").contains("'1'");
    }

    @Test
    void aReportFileInAMissingDirectoryIsRefusedBeforeAnythingRuns(@TempDir Path dir) {
        Path file = dir.resolve("missing").resolve("report.json");

        Cli.Result result = Cli.run("bench", "--scenario", "throughput", "--json", file.toString());

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.err()).contains("'--json'").contains(file.toString());
        assertThat(result.out()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({
        "demo,--duration,99999999999999h,1ms to 24h",
        "demo,--duration,25h,1ms to 24h",
        "demo,--duration,0,1ms to 24h",
        "demo,--shutdown-timeout,2h,1ms to 1h",
        "demo,--sample-interval,1ms,10ms to 1m",
        "bench,--warmup,61m,0s to 1h",
        "bench,--shutdown-timeout,PT0S,1ms to 1h"
    })
    void aDurationOutOfItsRangeIsRefusedNamingTheValueAndTheRange(
            String command, String option, String value, String range) {
        Cli.Result result = command.equals("bench")
                ? Cli.run("bench", "--scenario", "throughput", option, value)
                : Cli.run("demo", option, value);

        assertThat(result.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(result.err())
                .startsWith("Invalid value for option '" + option + "': '" + value + "' is out of range: must be from "
                        + range);
        assertThat(result.out()).as("nothing ran").isEmpty();
    }

    @Test
    void aReportPathThatIsADirectoryIsRefusedBeforeAnythingRuns(@TempDir Path dir) {
        Cli.Result result = Cli.run("demo", "--html", dir.toString());

        assertThat(result.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(result.err()).contains("'--html'").contains(dir.toString()).contains("it is a directory");
        assertThat(result.out()).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({"--json", "--html"})
    void aReportFileWhoseNameIsTooLongToCreateIsRefusedBeforeAnythingRuns(String option, @TempDir Path dir) {
        // the directory takes new files; only this name cannot be created (NAME_MAX is 255 bytes on Linux and macOS)
        Path file = dir.resolve("r".repeat(300) + ".json");

        Cli.Result result =
                Cli.run("demo", "--accounts", "10", "--clients", "2", "--commands", "100", option, file.toString());

        assertThat(result.exitCode()).as(result.out() + result.err()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(result.err().lines().findFirst())
                .hasValueSatisfying(line -> assertThat(line)
                        .startsWith("Invalid value for option '" + option + "': cannot write '" + file + "'")
                        .contains("cannot be created"));
        assertThat(result.out()).as("nothing ran").isEmpty();
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void aReportFileThatExistsIsCheckedWithoutTouchingIt(@TempDir Path dir) throws java.io.IOException {
        Path file = java.nio.file.Files.writeString(dir.resolve("old.json"), "kept");

        assertThat(ReportOptions.writeProblem(file)).isNull();
        assertThat(ReportOptions.writeProblem(dir.resolve("new.json"))).isNull();

        assertThat(file).hasContent("kept");
        assertThat(dir.resolve("new.json"))
                .as("the check leaves no file behind")
                .doesNotExist();
    }

    @Test
    void aReportFileInADirectoryThatTakesNoNewFileIsRefusedBeforeAnythingRuns() {
        Path proc = Path.of("/proc/self");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isDirectory(proc), "Linux /proc");
        Path file = proc.resolve("report.json");

        Cli.Result result = Cli.run("bench", "--scenario", "throughput", "--json", file.toString());

        assertThat(result.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(result.err()).contains("'--json'").contains(file.toString()).contains("it cannot be created (");
        assertThat(result.out()).isEmpty();
    }

    @Test
    void enumsAndScenariosAreCaseInsensitive() {
        CommandLine commandLine = LanesCli.commandLine();
        ParseResult parsed = commandLine.parseArgs(
                "bench",
                "--scenario",
                "HOT_KEY",
                "--strategy",
                "hashed",
                "--overflow",
                "Reject",
                "--shutdown-timeout",
                "1.5s");

        BenchCommand bench = (BenchCommand) parsed.subcommand().commandSpec().userObject();
        assertThat(bench.scenario).isEqualTo(Scenario.HOT_KEY);
        assertThat(bench.strategy).isEqualTo(LaneStrategy.HASHED);
        assertThat(bench.overflow).isEqualTo(LaneSettings.Overflow.REJECT);
        assertThat(bench.report.shutdownTimeout).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void theDemoDefaultsToTenSecondsOfThirtyTwoKeyedClientsOnAThousandAccounts() {
        ParseResult parsed = LanesCli.commandLine().parseArgs("demo");

        DemoCommand demo = (DemoCommand) parsed.subcommand().commandSpec().userObject();
        assertThat(demo.accounts).isEqualTo(1000);
        assertThat(demo.clients).isEqualTo(32);
        assertThat(demo.amount).isNull();
        assertThat(DemoCommand.DEFAULT_DURATION).isEqualTo(Duration.ofSeconds(10));
        assertThat(demo.strategy).isEqualTo(LaneStrategy.KEYED);
    }

    @ParameterizedTest
    @CsvSource({"demo,--acounts,10", "bench,--scenario,throughput --warmpu 1s"})
    void aMistypedOptionGetsOneLineASuggestionAndAHintNotTheUsage(String command, String option, String value) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of(command, option));
        args.addAll(java.util.List.of(value.split(" ")));

        Cli.Result result = Cli.run(args.toArray(String[]::new));

        assertThat(result.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(result.err())
                .startsWith("Unknown option")
                .contains("Try 'lanes " + command + " --help' for more information.")
                .doesNotContain("Usage:");
        assertThat(result.err().lines().count()).as(result.err()).isLessThanOrEqualTo(4);
        assertThat(result.out()).isEmpty();
    }

    @Test
    void noCommandAtAllShowsTheCommands() {
        Cli.Result result = Cli.run();

        assertThat(result.exitCode()).isEqualTo(ExitCode.BAD_OPTION);
        assertThat(result.err())
                .contains("Missing required subcommand")
                .contains("demo")
                .contains("bench");
    }

    @ParameterizedTest
    @CsvSource({"--help", "demo --help", "bench --help"})
    void everyHelpListsTheExitCodes(String args) {
        Cli.Result result = Cli.run(args.split(" "));

        assertThat(result.exitCode()).isZero();
        assertThat(result.out())
                .contains("Exit codes:")
                .containsPattern("\\s0\\s+every invariant passed")
                .containsPattern("\\s1\\s+an invariant failed")
                .containsPattern("\\s2\\s+a bad option; nothing ran")
                .containsPattern("\\s3\\s+infrastructure unavailable \\(the database or the Kafka broker\\)");
    }

    @Test
    void helpListsBothCommands() {
        Cli.Result result = Cli.run("--help");

        assertThat(result.exitCode()).isZero();
        assertThat(result.out()).contains("demo").contains("bench");
    }

    @ParameterizedTest
    @CsvSource({"demo", "bench"})
    void theUsageFormatsCleanly(String command) {
        PrintStream systemErr = System.err;
        ByteArrayOutputStream picocliWarnings = new ByteArrayOutputStream();
        System.setErr(new PrintStream(picocliWarnings, true, StandardCharsets.UTF_8));
        Cli.Result result;
        try {
            result = Cli.run(command, "--help");
        } finally {
            System.setErr(systemErr);
        }

        assertThat(result.exitCode()).isZero();
        assertThat(result.out()).contains("Usage: lanes " + command).contains("Exit codes:");
        assertThat(picocliWarnings.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void durationsAcceptTheUsualForms() {
        assertThat(Converters.duration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(Converters.duration("10")).isEqualTo(Duration.ofSeconds(10));
        assertThat(Converters.duration("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(Converters.duration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(Converters.duration("PT3S")).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void theCommandBenchWarmsUpLongerWithARealBackendUnlessTold() {
        assertThat(BenchCommand.commandWarmup(StoreOptions.Kind.MEMORY, BusOptions.Kind.MEMORY))
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(BenchCommand.commandWarmup(StoreOptions.Kind.POSTGRES, BusOptions.Kind.MEMORY))
                .isEqualTo(Duration.ofSeconds(15));
        assertThat(BenchCommand.commandWarmup(StoreOptions.Kind.MEMORY, BusOptions.Kind.KAFKA))
                .isEqualTo(Duration.ofSeconds(15));
        assertThat(BenchCommand.commandWarmup(StoreOptions.Kind.POSTGRES, BusOptions.Kind.KAFKA))
                .isEqualTo(Duration.ofSeconds(15));
    }
}
