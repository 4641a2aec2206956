package dev.lanes.cli.report;

import java.time.Duration;
import java.util.Locale;

/** How the reports and setup lines write durations and names. */
public final class Formats {
    private Formats() {}

    /** {@code 250 ms}, {@code 1.5 s}, {@code 10 s}. */
    public static String duration(Duration duration) {
        long millis = duration.toMillis();
        if (millis % 1000 != 0) {
            return millis < 1000 ? millis + " ms" : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        return millis / 1000 + " s";
    }

    /** An enum constant as the reports and the command line write it: {@code KEYED} as {@code keyed}. */
    public static String lower(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT);
    }

    /** A span of time given in nanoseconds, as microseconds below 10 ms ("412.5 us"), else milliseconds ("12.3 ms"). */
    public static String micros(long nanos) {
        return nanos < 10_000_000
                ? String.format(Locale.ROOT, "%,.1f us", nanos / 1e3)
                : String.format(Locale.ROOT, "%,.1f ms", nanos / 1e6);
    }
}
