package dev.lanes.cli.engine;

import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.runtime.ComponentGroup;
import dev.lanes.runtime.GroupedComponent;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import java.util.List;

/**
 * The bench's dispatchers, one per aggregate type, as one runtime component that owns their scheduler supplier: the
 * group drains the dispatchers in reverse order, then stops the supplier.
 */
final class BenchComponent implements GroupedComponent {
    private final ComponentGroup lifecycle;

    BenchComponent(List<AggregateDispatcher<BenchMessage>> dispatchers, AggregateSchedulerSupplier schedulers) {
        this.lifecycle = new ComponentGroup(name(), dispatchers, schedulers);
    }

    @Override
    public String name() {
        return "BenchDispatchers";
    }

    @Override
    public ComponentGroup lifecycle() {
        return lifecycle;
    }
}
