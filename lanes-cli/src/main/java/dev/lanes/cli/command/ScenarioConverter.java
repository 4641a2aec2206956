package dev.lanes.cli.command;

import dev.lanes.cli.engine.Scenario;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Accepts a scenario's label in any case, with {@code _} for {@code -} ({@code HOT_KEY}, {@code hot-key}). */
final class ScenarioConverter implements ITypeConverter<Scenario> {
    @Override
    public Scenario convert(String value) {
        String normalized = value.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Scenario scenario : Scenario.values()) {
            if (scenario.label().equals(normalized)) {
                return scenario;
            }
        }
        throw new TypeConversionException("expected one of " + Arrays.toString(labels()) + " but was '" + value + "'");
    }

    /** The labels, for picocli's {@code ${COMPLETION-CANDIDATES}}. */
    static final class Labels implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return Arrays.asList(labels()).iterator();
        }
    }

    private static String[] labels() {
        return Arrays.stream(Scenario.values()).map(Scenario::label).toArray(String[]::new);
    }
}
