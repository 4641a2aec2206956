package dev.lanes.cli.command;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Option converters that name the bad value; picocli prefixes "Invalid value for option '--x': ". */
final class Converters {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");

    private Converters() {}

    /** An integer above zero. */
    static final class Positive implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            int parsed = integer(value);
            if (parsed <= 0) {
                throw new TypeConversionException("must be a positive integer but was '" + value + "'");
            }
            return parsed;
        }
    }

    /** An integer of zero or more. */
    static final class NotNegative implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            int parsed = integer(value);
            if (parsed < 0) {
                throw new TypeConversionException("must not be negative but was '" + value + "'");
            }
            return parsed;
        }
    }

    /** A fraction strictly between 0 and 1. */
    static final class Fraction implements ITypeConverter<Double> {
        @Override
        public Double convert(String value) {
            double parsed;
            try {
                parsed = Double.parseDouble(value.trim());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a number");
            }
            if (!(parsed > 0 && parsed < 1)) {
                throw new TypeConversionException("must be between 0 and 1 (exclusive) but was '" + value + "'");
            }
            return parsed;
        }
    }

    /** A per-lane and a total bound of queued messages. */
    record LaneBounds(int perLane, int total) {
        @Override
        public String toString() {
            return perLane + "/" + total;
        }
    }

    /** Two positive integers {@code A/B} with {@code A <= B}: a per-lane and a total bound. */
    static final class Bounds implements ITypeConverter<LaneBounds> {
        @Override
        public LaneBounds convert(String value) {
            String[] parts = value.split("/", -1);
            if (parts.length != 2) {
                throw new TypeConversionException("must be PER_LANE/TOTAL, e.g. 1024/16384, but was '" + value + "'");
            }
            int perLane = new Positive().convert(parts[0]);
            int total = new Positive().convert(parts[1]);
            if (perLane > total) {
                throw new TypeConversionException(
                        "the per-lane bound must not exceed the total but was '" + value + "'");
            }
            return new LaneBounds(perLane, total);
        }
    }

    /**
     * A duration within a range, in the forms {@code 500ms}, {@code 10s}, {@code 1.5s}, {@code 2m}, {@code 1h}, {@code
     * 10} (seconds) or ISO-8601 ({@code PT10S}); a value outside the range is refused naming it and the range, never
     * clamped.
     */
    abstract static class BoundedDuration implements ITypeConverter<Duration> {
        private final String min;
        private final String max;

        /** The bounds, inclusive, as a user would type them. */
        BoundedDuration(String min, String max) {
            this.min = min;
            this.max = max;
        }

        @Override
        public Duration convert(String value) {
            Duration parsed = duration(value);
            if (parsed.compareTo(duration(min)) < 0 || parsed.compareTo(duration(max)) > 0) {
                throw new TypeConversionException(
                        "'" + value + "' is out of range: must be from " + min + " to " + max);
            }
            return parsed;
        }
    }

    /** How long the clients send: 1 ms to 24 h. */
    static final class RunDuration extends BoundedDuration {
        RunDuration() {
            super("1ms", "24h");
        }
    }

    /** The graceful stop's deadline: 1 ms to 1 h. */
    static final class ShutdownTimeout extends BoundedDuration {
        ShutdownTimeout() {
            super("1ms", "1h");
        }
    }

    /** How often the sampler looks: 10 ms to 1 min. */
    static final class SampleInterval extends BoundedDuration {
        SampleInterval() {
            super("10ms", "1m");
        }
    }

    /** How long latencies are left out at the start: 0 to 1 h. */
    static final class Warmup extends BoundedDuration {
        Warmup() {
            super("0s", "1h");
        }
    }

    /**
     * Parses a duration; a value too large for a {@link Duration} of nanoseconds becomes about 292 years, which no range
     * takes.
     */
    static Duration duration(String value) {
        String text = value.trim().toLowerCase(Locale.ROOT);
        Matcher matcher = DURATION.matcher(text);
        if (matcher.matches()) {
            double amount = Double.parseDouble(matcher.group(1));
            String unit = matcher.group(2) == null ? "s" : matcher.group(2);
            double millis = switch (unit) {
                case "ms" -> amount;
                case "m" -> amount * 60_000;
                case "h" -> amount * 3_600_000;
                default -> amount * 1_000;
            };
            return Duration.ofNanos(Math.round(millis * 1_000_000));
        }
        try {
            return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new TypeConversionException(
                    "'" + value + "' is not a duration (examples: 500ms, 10s, 1.5s, 2m, PT10S)");
        }
    }

    private static int integer(String value) {
        try {
            return Integer.parseInt(value.trim().replace("_", ""));
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is not an integer");
        }
    }
}
