package dev.lanes.api;

import dev.lanes.internal.Require;

/**
 * The value form of a {@link NamedAggregate}: equal for equal names whatever object carried them, so it is the key of
 * every per-aggregate-type cache (schedulers, dispatchers, bus routes).
 */
public record MaterializedNamedAggregate(String contextName, String aggregateName) implements NamedAggregate {

    public MaterializedNamedAggregate {
        Require.notBlank(contextName, "contextName");
        Require.notBlank(aggregateName, "aggregateName");
    }

    @Override
    public MaterializedNamedAggregate materialize() {
        return this;
    }

    /** {@code context.aggregate}, the form {@link NamedAggregate#parse(String)} reads. */
    @Override
    public String toString() {
        return contextName + "." + aggregateName;
    }
}
