package dev.lanes.command;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NonRecoverableException;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * No command dispatcher serves the command's aggregate type (often a misspelt name): it was refused at send and
 * nothing was kept. Retrying the same command cannot help.
 */
public final class UnknownAggregateTypeException extends NonRecoverableException {
    private static final long serialVersionUID = 1L;

    private final transient MaterializedNamedAggregate aggregateType;
    private final transient Set<MaterializedNamedAggregate> registered;

    private UnknownAggregateTypeException(
            String bus, MaterializedNamedAggregate aggregateType, Set<MaterializedNamedAggregate> registered) {
        super(bus + " has no receiver for aggregate type " + aggregateType + "; registered types: "
                + names(registered));
        this.aggregateType = aggregateType;
        this.registered = registered;
    }

    /** {@code bus} refused a command for {@code aggregateType}; {@code registered} are the types it serves. */
    public static UnknownAggregateTypeException of(
            String bus, MaterializedNamedAggregate aggregateType, Collection<MaterializedNamedAggregate> registered) {
        return new UnknownAggregateTypeException(
                Objects.requireNonNull(bus, "bus"),
                Objects.requireNonNull(aggregateType, "aggregateType"),
                Set.copyOf(registered));
    }

    /** The type nobody serves. */
    public MaterializedNamedAggregate aggregateType() {
        return aggregateType;
    }

    /** The types the bus serves. */
    public Set<MaterializedNamedAggregate> registered() {
        return registered;
    }

    private static String names(Set<MaterializedNamedAggregate> registered) {
        Set<String> sorted = new TreeSet<>();
        registered.forEach(type -> sorted.add(type.toString()));
        return sorted.isEmpty() ? "none" : String.join(", ", sorted);
    }
}
