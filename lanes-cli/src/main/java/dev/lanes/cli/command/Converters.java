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

    /** A positive duration: {@code 500ms}, {@code 10s}, {@code 1.5s}, {@code 2m}, {@code 10} (seconds) or ISO-8601. */
    static final class PositiveDuration implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            Duration parsed = duration(value);
            if (parsed.isNegative() || parsed.isZero()) {
                throw new TypeConversionException("must be a positive duration but was '" + value + "'");
            }
            return parsed;
        }
    }

    /** A duration of zero or more, in the same forms. */
    static final class NotNegativeDuration implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            Duration parsed = duration(value);
            if (parsed.isNegative()) {
                throw new TypeConversionException("must not be negative but was '" + value + "'");
            }
            return parsed;
        }
    }

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
        } catch (DateTimeParseException e) {
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
