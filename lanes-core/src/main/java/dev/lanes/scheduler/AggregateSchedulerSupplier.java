package dev.lanes.scheduler;

import dev.lanes.api.NamedAggregate;
import dev.lanes.lifecycle.ForceStoppable;
import reactor.core.scheduler.Scheduler;

/**
 * Hands out one Reactor {@link Scheduler} per aggregate type to the dispatchers that process it.
 *
 * <p>A scheduler is per <em>type</em> ({@code sales.order}), not per aggregate id, and it is not a lock: ordering per
 * aggregate comes from the dispatcher's lanes, and write consistency from the event store's expected-version check.
 *
 * <p>Get one from {@link AggregateSchedulers}. Ownership: the supplier that created a scheduler disposes it. After a stop has begun, {@link
 * #getOrInitialize(NamedAggregate)} is rejected; a scheduler handed out before is part of the disposal.
 */
public interface AggregateSchedulerSupplier extends ForceStoppable {

    /**
     * The scheduler of this aggregate type, created on first use and cached by the type's materialized key.
     *
     * @throws IllegalStateException naming the supplier once a stop has begun
     */
    Scheduler getOrInitialize(NamedAggregate namedAggregate);

    /**
     * Disposes every cached scheduler at once (running tasks are interrupted, queued ones dropped) and rejects new ones.
     * Takes over a graceful stop that is still running: its observers complete when the workers have ended. Idempotent
     * and non-blocking.
     */
    @Override
    void forceStop();
}
