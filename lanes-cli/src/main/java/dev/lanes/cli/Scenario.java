package dev.lanes.cli;

import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** The {@code bench} scenarios, named as on the command line. */
enum Scenario {
    THROUGHPUT("throughput", "zero-cost handler: the dispatch path itself"),
    CPU("cpu", "a handler that burns about 20 us of CPU"),
    HOT_KEY("hot-key", "one hot id whose handler waits 2 ms (Mono.delay) on 1% of its messages"),
    STUCK_LANE("stuck-lane", "one lane whose handler never completes; every other lane must be handled"),
    MANY_TYPES("many-types", "T aggregate types sharing one scheduler supplier"),
    COMMAND("command", "the command path: gateway, command bus, command dispatcher, store, PROCESSED");

    final String label;
    final String description;

    Scenario(String label, String description) {
        this.label = label;
        this.description = description;
    }

    /** Accepts the label in any case, with {@code _} for {@code -} ({@code HOT_KEY}, {@code hot-key}). */
    static final class Converter implements ITypeConverter<Scenario> {
        @Override
        public Scenario convert(String value) {
            String normalized = value.trim().toLowerCase(Locale.ROOT).replace('_', '-');
            for (Scenario scenario : values()) {
                if (scenario.label.equals(normalized)) {
                    return scenario;
                }
            }
            throw new TypeConversionException(
                    "expected one of " + Arrays.toString(labels()) + " but was '" + value + "'");
        }
    }

    /** The labels, for picocli's {@code ${COMPLETION-CANDIDATES}}. */
    static final class Labels implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.asList(labels()).iterator();
        }
    }

    private static String[] labels() {
        return Arrays.stream(values()).map(s -> s.label).toArray(String[]::new);
    }
}
