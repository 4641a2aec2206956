package dev.lanes.api;

import dev.lanes.internal.Require;
import java.util.Objects;

record SimpleAggregateId(MaterializedNamedAggregate namedAggregate, String id, String tenantId) implements AggregateId {

    SimpleAggregateId {
        Objects.requireNonNull(namedAggregate, "namedAggregate");
        Require.notBlank(id, "id");
        Require.notBlank(tenantId, "tenantId");
    }

    /** {@code context.aggregate/id} (tenant appended when not the default). */
    @Override
    public String toString() {
        String base = namedAggregate + "/" + id;
        return DEFAULT_TENANT.equals(tenantId) ? base : base + "@" + tenantId;
    }
}
