package dev.lanes;

import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import reactor.core.publisher.Mono;

/**
 * The pool every dispatcher borrows with {@link Lanes.Builder#sharedWorkers}, as the runtime's first component: it
 * processes nothing, and the runtime stops components in reverse order, so the pool stops after every dispatcher that
 * runs on it has drained, or is forced after them.
 */
final class SharedWorkers implements RuntimeComponent {
    private final String name;
    private final AggregateSchedulerSupplier pool;

    SharedWorkers(String name, AggregateSchedulerSupplier pool) {
        this.name = name;
        this.pool = pool;
    }

    @Override
    public String name() {
        return name;
    }

    /** Nothing to acquire: the pool starts its threads on demand. */
    @Override
    public Mono<Void> prepare(RuntimeContext context) {
        return Mono.empty();
    }

    @Override
    public void start() {}

    /** Takes no work of its own: nothing to close. */
    @Override
    public void quiesce() {}

    /** Lets the tasks still queued run, then ends the threads; the supplier's own stop, lazy and shared. */
    @Override
    public Mono<Void> stopGracefully() {
        return pool.stopGracefully();
    }

    @Override
    public void forceStop() {
        pool.forceStop();
    }

    @Override
    public String toString() {
        return "SharedWorkers[" + pool + "]";
    }
}
