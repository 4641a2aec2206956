package dev.lanes.cli.command;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** Options every run command has: report files, quiet, sampling, seed and the shutdown deadline. */
final class ReportOptions {

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the report as JSON to FILE.")
    @Nullable
    Path json;

    @Option(names = "--html", paramLabel = "FILE", description = "Also write a self-contained HTML report to FILE.")
    @Nullable
    Path html;

    @Option(
            names = {"-q", "--quiet"},
            description = "No phase lines and no live progress line; only the report.")
    boolean quiet;

    @Option(
            names = "--sample-interval",
            defaultValue = "200ms",
            converter = Converters.PositiveDuration.class,
            paramLabel = "DURATION",
            description = "How often throughput and lane depths are sampled (default: ${DEFAULT-VALUE}).")
    Duration sampleInterval = Duration.ofMillis(200);

    @Option(
            names = "--seed",
            defaultValue = "42",
            description = "Seed of the traffic's random choices (default: ${DEFAULT-VALUE}).")
    long seed = 42;

    @Option(
            names = "--shutdown-timeout",
            converter = Converters.PositiveDuration.class,
            paramLabel = "DURATION",
            description = "Deadline of the graceful stop before it is forced (default: 30s; stuck-lane: 1s).")
    @Nullable
    Duration shutdownTimeout;

    /** Fails with a usage error, before anything runs, when a report file could not be written. */
    void validate(CommandSpec spec) {
        checkWritable(spec, "--json", json);
        checkWritable(spec, "--html", html);
    }

    Duration shutdownTimeout(Duration otherwise) {
        return shutdownTimeout != null ? shutdownTimeout : otherwise;
    }

    private static void checkWritable(CommandSpec spec, String option, @Nullable Path file) {
        if (file == null) {
            return;
        }
        Path parent = file.toAbsolutePath().getParent();
        if (Files.isDirectory(file) || parent == null || !Files.isDirectory(parent)) {
            throw new ParameterException(
                    spec.commandLine(),
                    "Invalid value for option '" + option + "': cannot write a file at '" + file
                            + "' (is it a directory, or does its directory not exist?)");
        }
    }
}
