package dev.lanes.cli.command;

import java.util.LinkedHashMap;
import java.util.Map;

/** The exit codes of {@code lanes demo}, {@code lanes bench} and {@code lanes parked}, as docs/operations/exit-codes.md and every {@code --help} list them. */
public final class ExitCode {
    /** The run ended and every invariant passed. */
    public static final int PASSED = 0;
    /** The run ended and an invariant failed (or a report file could not be written after it). */
    public static final int INVARIANT_FAILED = 1;
    /** An option was bad or missing; nothing ran. */
    public static final int BAD_OPTION = 2;
    /** Something the run needs outside this process (the database, the Kafka broker) could not be reached. */
    public static final int INFRASTRUCTURE_UNAVAILABLE = 3;
    /** {@code lanes parked retry|skip}: nothing is parked for that processor and aggregate. */
    public static final int NOTHING_PARKED = 4;
    /** An unexpected error: a bug, reported with its stack trace. */
    public static final int UNEXPECTED_ERROR = 70;

    private ExitCode() {}

    /** Code to description, in order, for picocli's exit code list. */
    static Map<String, String> descriptions() {
        Map<String, String> codes = new LinkedHashMap<>();
        codes.put(Integer.toString(PASSED), "every invariant passed");
        codes.put(Integer.toString(INVARIANT_FAILED), "an invariant failed");
        codes.put(Integer.toString(BAD_OPTION), "a bad option; nothing ran");
        codes.put(
                Integer.toString(INFRASTRUCTURE_UNAVAILABLE),
                "infrastructure unavailable (the database or the Kafka broker)");
        codes.put(Integer.toString(NOTHING_PARKED), "nothing parked for that processor and aggregate (parked)");
        codes.put(Integer.toString(UNEXPECTED_ERROR), "an unexpected error (a bug; the stack trace is printed)");
        return codes;
    }
}
