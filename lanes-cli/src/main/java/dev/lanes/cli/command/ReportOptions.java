package dev.lanes.cli.command;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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

    /**
     * Fails with a usage error, before anything runs, when a report file could not be written: one line naming the
     * option, the path and the file system's reason (exit code {@link ExitCode#BAD_OPTION}).
     */
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
     * Why {@code file} could not be written, or null when it can. The file itself is tried, not a stand-in: its
     * directory must exist; a file already there is opened for writing and closed untouched; a new one is created and
     * deleted again. So whatever the file system refuses of that path (a name too long, a read-only file system, a
     * directory that takes no new files, no permission) is found before the run, and the check leaves no file behind.
     */
    static @Nullable String writeProblem(Path file) {
        Path parent = file.getParent();
        if (parent == null || !Files.isDirectory(parent)) {
            return "its directory " + parent + " does not exist";
        }
        if (Files.isDirectory(file)) {
            return "it is a directory";
        }
        if (Files.exists(file)) {
            return Files.isRegularFile(file) ? tryOpen(file) : "it exists and is not a regular file";
        }
        return tryCreate(file);
    }

    private static @Nullable String tryOpen(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            return null;
        } catch (IOException | SecurityException e) {
            return "it exists and cannot be opened for writing (" + reason(e) + ")";
        }
    }

    private static @Nullable String tryCreate(Path file) {
        try {
            Files.newByteChannel(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)
                    .close();
        } catch (IOException | SecurityException e) {
            return "it cannot be created (" + reason(e) + ")";
        }
        try {
            Files.delete(file);
            return null;
        } catch (IOException e) {
            return "it was created but cannot be deleted again (" + reason(e) + ")";
        }
    }

    /** The file system's own words ({@code File name too long}), without the path the message already names. */
    private static String reason(Exception e) {
        if (e instanceof FileSystemException fileSystem) {
            String reason = fileSystem.getReason();
            return reason != null ? reason : e.getClass().getSimpleName();
        }
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
}
