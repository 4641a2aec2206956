package dev.lanes.spring;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.Ordered;
import org.springframework.core.convert.ConversionFailedException;

/**
 * The one path of every start that Lanes' configuration refuses: a {@code lanes.*} property that does not bind (a value
 * out of range, one that is not among the valid ones) and a {@link LanesConfigurationException} (a store that cannot
 * be built, a timeout that contradicts Spring's) become Spring Boot's "APPLICATION FAILED TO START" report, whose
 * description is one line naming the property, the value and what is valid. Ordered ahead of Spring Boot's own
 * analyzers, so a {@code lanes.*} binding failure is described here, not as a raw conversion message.
 *
 * <p>Registered in {@code META-INF/spring.factories}; Spring Boot calls it once, on the failing start's thread.
 */
final class LanesFailureAnalyzer implements FailureAnalyzer, Ordered {

    @Override
    public @Nullable FailureAnalysis analyze(Throwable failure) {
        LanesConfigurationException refused = find(failure, LanesConfigurationException.class);
        if (refused != null) {
            return new FailureAnalysis(refused.getMessage(), refused.action(), refused);
        }
        BindException bind = find(failure, BindException.class);
        if (bind == null || !bind.getName().toString().startsWith("lanes")) {
            return null;
        }
        return new FailureAnalysis(
                describe(bind),
                "Correct it in the application's configuration: the lanes.* properties, their defaults and valid values"
                        + " are in the configuration metadata (your IDE completes them) and in"
                        + " docs/guides/spring-boot.md.",
                bind);
    }

    /**
     * "lanes.store: 'bogus' is not one of memory, postgres" for a value not converted to an enum, or the checks' own
     * message (which names the property and the value) for one out of range.
     */
    static String describe(BindException bind) {
        ConfigurationProperty property = bind.getProperty();
        String name = property != null
                ? property.getName().toString()
                : bind.getName().toString();
        ConversionFailedException conversion = find(bind, ConversionFailedException.class);
        if (conversion != null && property != null) {
            Class<?> target = conversion.getTargetType().getType();
            String value = String.valueOf(property.getValue());
            if (target.isEnum()) {
                String valid = Arrays.stream(target.getEnumConstants())
                        .map(constant -> ((Enum<?>) constant)
                                .name()
                                .toLowerCase(Locale.ROOT)
                                .replace('_', '-'))
                        .collect(Collectors.joining(", "));
                return name + ": '" + value + "' is not one of " + valid;
            }
            return name + ": '" + value + "' is not a valid " + target.getSimpleName();
        }
        Throwable root = bind;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        return root instanceof IllegalArgumentException && message != null
                ? message
                : name + ": " + (property != null ? "'" + property.getValue() + "' " : "") + "could not be bound ("
                        + root + ")";
    }

    private static <T extends Throwable> @Nullable T find(Throwable failure, Class<T> type) {
        for (Throwable current = failure; current != null; current = current.getCause()) {
            if (type.isInstance(current)) {
                return type.cast(current);
            }
            if (current.getCause() == current) {
                break;
            }
        }
        return null;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }
}
