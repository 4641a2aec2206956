package dev.lanes.api;

/**
 * One aggregate instance: its type plus its {@link #id()}.
 *
 * <p>The id is unique within its named aggregate across all tenants; the tenant is routing context, not a namespace.
 * Equality is value equality over tenant, both names and id. An aggregate id materializes to its type's key.
 */
public interface AggregateId extends NamedAggregate {

    /** The tenant used when none is given. */
    String DEFAULT_TENANT = "default";

    MaterializedNamedAggregate namedAggregate();

    String id();

    String tenantId();

    @Override
    default String contextName() {
        return namedAggregate().contextName();
    }

    @Override
    default String aggregateName() {
        return namedAggregate().aggregateName();
    }

    @Override
    default MaterializedNamedAggregate materialize() {
        return namedAggregate();
    }

    /**
     * @throws IllegalArgumentException if {@code id} is blank, naming the argument
     */
    static AggregateId of(NamedAggregate namedAggregate, String id) {
        return of(namedAggregate, id, DEFAULT_TENANT);
    }

    /**
     * @throws IllegalArgumentException if {@code id} or {@code tenantId} is blank, naming the argument
     */
    static AggregateId of(NamedAggregate namedAggregate, String id, String tenantId) {
        return new SimpleAggregateId(namedAggregate.materialize(), id, tenantId);
    }
}
