package dev.lanes.api;

import java.util.Objects;

/**
 * An aggregate type: the bounded context it lives in and its name, e.g. {@code sales.order}.
 *
 * <p>Anything that carries the two names (an aggregate id, a message, metadata) may implement this interface. Code
 * that needs a key for an aggregate type uses {@link #materialize()}, never the carrier itself: two carriers with the
 * same names materialize to equal values.
 */
public interface NamedAggregate {

    String contextName();

    String aggregateName();

    /** The cache key for this aggregate type: an immutable value equal for every carrier of the same two names. */
    default MaterializedNamedAggregate materialize() {
        return new MaterializedNamedAggregate(contextName(), aggregateName());
    }

    /**
     * @throws IllegalArgumentException if a name is blank, naming the argument
     */
    static NamedAggregate of(String contextName, String aggregateName) {
        return new MaterializedNamedAggregate(contextName, aggregateName);
    }

    /**
     * Parses {@code "context.aggregate"}: exactly two non-blank parts separated by one dot.
     *
     * @throws IllegalArgumentException naming the input when it has another shape
     */
    static NamedAggregate parse(String qualifiedName) {
        Objects.requireNonNull(qualifiedName, "qualifiedName");
        int dot = qualifiedName.indexOf('.');
        if (dot < 0
                || dot != qualifiedName.lastIndexOf('.')
                || qualifiedName.substring(0, dot).isBlank()
                || qualifiedName.substring(dot + 1).isBlank()) {
            throw new IllegalArgumentException(
                    "qualifiedName must be 'context.aggregate' (two non-blank parts): '" + qualifiedName + "'");
        }
        return of(qualifiedName.substring(0, dot), qualifiedName.substring(dot + 1));
    }
}
