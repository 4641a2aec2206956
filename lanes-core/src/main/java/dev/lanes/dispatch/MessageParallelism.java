package dev.lanes.dispatch;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Require;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The group (lane) key of an aggregate id under a dispatcher's parallelism.
 *
 * <p>Only {@link AggregateId#id()} takes part: tenant and names do not. The same id always maps to the same group under
 * the same parallelism; different ids may share a group (for example {@code "AaAa"} and {@code "BBBB"} have equal
 * hash codes and share a group for every parallelism).
 */
public final class MessageParallelism {

    /** The system property that overrides {@link #DEFAULT_PARALLELISM}. */
    public static final String PARALLELISM_PROPERTY = "lanes.parallelism";

    /**
     * Groups per dispatcher unless configured: 64 x available processors, or the positive integer in the system
     * property {@value #PARALLELISM_PROPERTY}, read once when this class loads.
     */
    public static final int DEFAULT_PARALLELISM = resolveDefault(
            System.getProperty(PARALLELISM_PROPERTY), Runtime.getRuntime().availableProcessors());

    private MessageParallelism() {}

    /**
     * {@code floorMod(aggregateId.id().hashCode(), parallelism)}: in {@code [0, parallelism)}, never negative.
     *
     * @throws IllegalArgumentException if {@code parallelism <= 0}
     */
    public static int toGroupKey(AggregateId aggregateId, int parallelism) {
        Objects.requireNonNull(aggregateId, "aggregateId");
        Require.positive(parallelism, "parallelism");
        return Math.floorMod(aggregateId.id().hashCode(), parallelism);
    }

    static int resolveDefault(@Nullable String propertyValue, int availableProcessors) {
        if (propertyValue == null) {
            return 64 * availableProcessors;
        }
        int parsed;
        try {
            parsed = Integer.parseInt(propertyValue.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "System property " + PARALLELISM_PROPERTY + " must be a positive integer: '" + propertyValue + "'",
                    e);
        }
        if (parsed <= 0) {
            throw new IllegalArgumentException(
                    "System property " + PARALLELISM_PROPERTY + " must be a positive integer: '" + propertyValue + "'");
        }
        return parsed;
    }
}
