package dev.lanes.cli.command;

import java.io.IOException;
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
            converter = Converters.SampleInterval.class,
            paramLabel = "DURATION",
            description = "How often throughput and lane depths are sampled, 10ms to 1m (default: ${DEFAULT-VALUE}).")
    Duration sampleInterval = Duration.ofMillis(200);

    @Option(
            names = "--seed",
            defaultValue = "42",
            description = "Seed of the traffic's random choices (default: ${DEFAULT-VALUE}).")
    long seed = 42;

    @Option(
            names = "--shutdown-timeout",
            converter = Converters.ShutdownTimeout.class,
            paramLabel = "DURATION",
            description =
                    "Deadline of the graceful stop before it is forced, 1ms to 1h (default: 30s; stuck-lane:" + " 1s).")
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
        String problem = writeProblem(file.toAbsolutePath());
        if (problem != null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "Invalid value for option '" + option + "': cannot write '" + file + "': " + problem);
        }
    }

    /**
     * Why {@code file} could not be written, or null when it can: its directory must exist and take a new file (tried
     * with a probe file, which also catches a read-only file system and a root user), and the file, if it exists, must
     * be a writable regular file.
     */
    static @Nullable String writeProblem(Path file) {
        Path parent = file.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            return "its directory " + parent + " does not exist";
        }
        if (Files.exists(file) && (!Files.isRegularFile(file) || !Files.isWritable(file))) {
            return Files.isDirectory(file) ? "it is a directory" : "it exists and is not a writable file";
        }
        return probe(parent);
    }

    private static @Nullable String probe(Path directory) {
        try {
            Files.delete(Files.createTempFile(directory, ".lanes-", ".probe"));
            return null;
        } catch (IOException | SecurityException e) {
            return "its directory " + directory + " does not take new files ("
                    + e.getClass().getSimpleName() + ")";
        }
    }
}
