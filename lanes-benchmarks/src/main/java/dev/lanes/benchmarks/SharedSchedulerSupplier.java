package dev.lanes.benchmarks;

import dev.lanes.api.NamedAggregate;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import java.util.Objects;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/** Hands the same scheduler to every aggregate type and owns it: the engine on one bounded pool for all types. */
final class SharedSchedulerSupplier implements AggregateSchedulerSupplier {
    private final Scheduler scheduler;

    SharedSchedulerSupplier(Scheduler scheduler) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    @Override
    public Scheduler getOrInitialize(NamedAggregate namedAggregate) {
        Objects.requireNonNull(namedAggregate, "namedAggregate");
        if (scheduler.isDisposed()) {
            throw new IllegalStateException(this + " has stopped");
        }
        return scheduler;
    }

    @Override
    public Mono<Void> stopGracefully() {
        return scheduler.disposeGracefully();
    }

    @Override
    public void forceStop() {
        scheduler.dispose();
    }

    @Override
    public String toString() {
        return "SharedSchedulerSupplier[" + scheduler + "]";
    }
}
