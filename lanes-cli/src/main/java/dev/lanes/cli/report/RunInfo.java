package dev.lanes.cli.report;

import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Properties;

/**
 * Where and when a run ran, for the JSON and HTML reports.
 *
 * @param jdk vendor and version of the JVM, e.g. {@code "Eclipse Adoptium 17.0.15"}
 * @param vm the JVM's name, e.g. {@code "OpenJDK 64-Bit Server VM"}
 * @param processors available to the JVM when the run started
 * @param startedAt when the run started, ISO-8601 in UTC, to the second
 * @param commit the abbreviated git commit the CLI was built from, or {@code "unknown"} (built without git, or outside
 *     a git clone)
 */
public record RunInfo(String jdk, String vm, int processors, String startedAt, String commit) {
    static final String UNKNOWN = "unknown";
    private static final String BUILD_PROPERTIES = "/dev/lanes/cli/build.properties";

    /** This JVM, now by {@code clock}, and the commit recorded at build time. */
    public static RunInfo current(Clock clock) {
        return new RunInfo(
                System.getProperty("java.vendor", UNKNOWN) + " " + System.getProperty("java.version", UNKNOWN),
                System.getProperty("java.vm.name", UNKNOWN),
                Runtime.getRuntime().availableProcessors(),
                utc(clock.instant()),
                buildCommit());
    }

    static String utc(Instant instant) {
        return DateTimeFormatter.ISO_INSTANT.format(instant.truncatedTo(ChronoUnit.SECONDS));
    }

    /**
     * The commit written into {@code build.properties} at build time ({@code git rev-parse --short HEAD}); {@code
     * "unknown"} when the resource is missing or the build had no git.
     */
    static String buildCommit() {
        Properties build = new Properties();
        try (InputStream in = RunInfo.class.getResourceAsStream(BUILD_PROPERTIES)) {
            if (in != null) {
                build.load(in);
            }
        } catch (IOException e) {
            return UNKNOWN;
        }
        return commitOf(build.getProperty("commit", ""));
    }

    static String commitOf(String commit) {
        String trimmed = commit.strip();
        return trimmed.isEmpty() || trimmed.contains("${") ? UNKNOWN : trimmed;
    }

    /** One line for the text and HTML reports. */
    public String describe() {
        return String.format(
                Locale.ROOT,
                "%s (%s), %d processor(s), started %s, lanes built from commit %s",
                jdk,
                vm,
                processors,
                startedAt,
                commit);
    }
}
