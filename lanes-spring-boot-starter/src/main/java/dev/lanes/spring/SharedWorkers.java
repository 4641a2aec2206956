package dev.lanes.spring;

import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;

/**
 * {@code lanes.schedulers.kind=shared-workers}: the auto-configured {@code Lanes} runs both dispatchers on one pool of
 * {@code workers} threads ({@code Lanes.Builder.sharedWorkers}), which the runtime owns and stops last.
 *
 * <p>Lanes does not call {@link #create}: the pool is shared across dispatchers, which a supplier per dispatcher cannot
 * express. Code that calls it directly gets what {@code shared-pool} gives, a pool per dispatcher.
 *
 * @param workers threads of the one pool, positive
 */
record SharedWorkers(int workers) implements DispatcherSchedulers {
    @Override
    public AggregateSchedulerSupplier create(String dispatcher) {
        return AggregateSchedulers.sharedPool(dispatcher, workers);
    }
}
