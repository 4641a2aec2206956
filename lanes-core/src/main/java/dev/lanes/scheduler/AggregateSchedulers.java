package dev.lanes.scheduler;

import java.util.Objects;
import reactor.core.scheduler.Schedulers;

/**
 * The scheduler suppliers Lanes ships. Each caches one Reactor scheduler per materialized named aggregate (per
 * aggregate <em>type</em>, not per id), owns it, and disposes it on stop; after a stop has begun, {@code
 * getOrInitialize} is rejected with an error naming the supplier.
 *
 * <p>Which to pick:
 *
 * <ul>
 *   <li>{@link #perType(String, int)} (the default, the seed's contract): {@code workers} threads per aggregate type,
 *       named {@code <name>-<aggregateName>-<n>}. For few aggregate types, or types that must never wait for each
 *       other's workers.
 *   <li>{@link #sharedPool(String, int)}: {@code workers} threads in all, named {@code <name>-shared-<n>}; each type
 *       still gets its own scheduler (named {@code <name>-<aggregateName>}, so metrics stay per type). For many types
 *       on few cores.
 * </ul>
 *
 * <p>In both, the workers of a scheduler take tasks from shared queues and steal from each other, so a lane never waits
 * behind a busy worker while another idles; delays (retry backoff) wait on one timer thread per supplier, {@code
 * <name>-timer}.
 */
public final class AggregateSchedulers {
    private AggregateSchedulers() {}

    /**
     * A supplier whose per-type schedulers have {@code workers} threads each, named {@code <name>-<aggregateName>-<n>},
     * as the seed's {@code Schedulers.newParallel(name + "-" + aggregateName, workers)}.
     *
     * @param name prefix of every worker thread name
     * @param workers threads per aggregate type's scheduler
     * @throws IllegalArgumentException naming the value if {@code name} is blank or {@code workers <= 0}
     */
    public static AggregateSchedulerSupplier perType(String name, int workers) {
        return new DefaultAggregateSchedulerSupplier(name, workers);
    }

    /** {@link #perType(String, int)} with {@link Schedulers#DEFAULT_POOL_SIZE} workers per type. */
    public static AggregateSchedulerSupplier perType(String name) {
        return new DefaultAggregateSchedulerSupplier(name);
    }

    /**
     * A supplier whose per-type schedulers are views of one pool of {@code workers} threads, named {@code
     * <name>-shared-<n>}, instead of a pool per type. Each type still gets its own scheduler and lanes still run one
     * exchange at a time; only the threads are shared. Keep {@link #perType} when one type's slow handlers must never
     * occupy the workers another type needs.
     *
     * @throws IllegalArgumentException naming the value if {@code name} is blank or {@code workers <= 0}
     */
    public static AggregateSchedulerSupplier sharedPool(String name, int workers) {
        return DefaultAggregateSchedulerSupplier.sharedPool(name, workers);
    }

    /**
     * A non-owning view of {@code owner}: it hands out the owner's schedulers, and its stop verbs do nothing. Give it to
     * children that share their parent's schedulers, so a child's stop or force never releases what the parent still
     * uses; only the owner is stopped for real. Borrowing a borrowed view borrows its owner.
     */
    public static AggregateSchedulerSupplier borrowed(AggregateSchedulerSupplier owner) {
        return BorrowedAggregateSchedulerSupplier.borrow(Objects.requireNonNull(owner, "owner"));
    }
}
