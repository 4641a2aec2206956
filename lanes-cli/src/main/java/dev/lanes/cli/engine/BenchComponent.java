package dev.lanes.cli.engine;

import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.lifecycle.GroupedComponent;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import java.util.List;

/**
 * The bench's dispatchers, one per aggregate type, as one runtime component that owns their scheduler supplier: the
 * group drains the dispatchers in reverse order, then stops the supplier.
 */
final class BenchComponent implements GroupedComponent {
    private final RuntimeComponent lifecycle;

    BenchComponent(List<AggregateDispatcher<BenchMessage>> dispatchers, AggregateSchedulerSupplier schedulers) {
        this.lifecycle = RuntimeComponent.group(name(), dispatchers, schedulers);
    }

    @Override
    public String name() {
        return "BenchDispatchers";
    }

    @Override
    public RuntimeComponent lifecycle() {
        return lifecycle;
    }
}
