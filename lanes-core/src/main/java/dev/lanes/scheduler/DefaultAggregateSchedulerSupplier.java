package dev.lanes.scheduler;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.internal.Require;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Caches one scheduler per materialized named aggregate, with {@link #parallelism()} workers named {@code
 * <name>-<aggregateName>-<n>}, as the seed's {@code Schedulers.newParallel(name + "-" + aggregateName, parallelism)}.
 *
 * <p>Unlike Reactor's parallel scheduler, whose workers each have a queue of their own (a task handed to a busy worker
 * waits for it while another idles), the workers of one scheduler take tasks from shared queues and steal from each
 * other: any free worker of the type runs the next ready lane. Delays (retry backoff) wait on one timer thread per
 * supplier, {@code <name>-timer}, which only hands tasks to the workers. The schedulers are Reactor {@link Scheduler}s
 * in every respect ({@code createWorker()} runs its tasks one at a time, in order).
 *
 * <p>Concurrency: the cache, the stopped flag and the terminal snapshot are guarded by one monitor, which both {@link
 * #getOrInitialize} and the stop verbs take. A lookup racing with a stop is either admitted before it, and its
 * scheduler is in the snapshot that stop disposes, or rejected after it; no scheduler escapes disposal.
 *
 * <p>After stop: {@link #getOrInitialize} throws {@link IllegalStateException} naming the supplier; a holder of an old
 * scheduler gets Reactor's {@link java.util.concurrent.RejectedExecutionException} when it schedules onto it.
 */
final class DefaultAggregateSchedulerSupplier implements AggregateSchedulerSupplier {
    private final String name;
    private final int parallelism;
    private final Object lock = new Object();
    private final Map<MaterializedNamedAggregate, Scheduler> schedulers = new HashMap<>();
    private @Nullable List<Scheduler> terminalSnapshot;
    private final ScheduledThreadPoolExecutor timer;
    private final @Nullable WorkerPool sharedPool;
    private final Mono<Void> gracefulStop;

    /** A supplier whose schedulers have {@link Schedulers#DEFAULT_POOL_SIZE} workers each. */
    DefaultAggregateSchedulerSupplier(String name) {
        this(name, Schedulers.DEFAULT_POOL_SIZE);
    }

    /**
     * @param name prefix of every worker thread name
     * @param parallelism workers per aggregate type's scheduler
     * @throws IllegalArgumentException naming the value if {@code name} is blank or {@code parallelism <= 0}
     */
    DefaultAggregateSchedulerSupplier(String name, int parallelism) {
        this(name, parallelism, false);
    }

    private DefaultAggregateSchedulerSupplier(String name, int parallelism, boolean shared) {
        this.name = Require.notBlank(name, "name");
        this.parallelism = Require.positive(parallelism, "parallelism");
        this.timer = SupplierTimer.create(name);
        this.sharedPool = shared ? new WorkerPool(name + "-shared", parallelism, timer) : null;
        this.gracefulStop = Mono.defer(() -> Flux.fromIterable(terminate())
                        .flatMap(Scheduler::disposeGracefully)
                        .then(sharedPool == null ? Mono.empty() : sharedPool.shutdown()))
                .doFinally(signal -> timer.shutdownNow())
                .cache();
    }

    /**
     * A supplier whose per-type schedulers are views of one pool of {@code workers} threads, named {@code
     * <name>-shared-<n>}, instead of a pool per type. Each type still gets its own scheduler (named {@code
     * <name>-<aggregateName>}, so dispatcher metrics stay per type) and lanes still run one exchange at a time; only the
     * threads are shared.
     *
     * <p>Pick it when a service has many aggregate types and few cores: 20 types on the default supplier start 20 x
     * {@code parallelism} threads that compete for the same cores, while a shared pool keeps the thread count at {@code
     * workers} and lets any idle worker run any type's lane. Keep the default (the seed's contract) when types must not
     * share workers, e.g. so that one type's slow handlers can never occupy every worker another type needs.
     *
     * @throws IllegalArgumentException naming the value if {@code name} is blank or {@code workers <= 0}
     */
    static DefaultAggregateSchedulerSupplier sharedPool(String name, int workers) {
        return new DefaultAggregateSchedulerSupplier(name, workers, true);
    }

    String name() {
        return name;
    }

    /** Workers per type's scheduler or, for a {@link #sharedPool} supplier, of the one shared pool. */
    int parallelism() {
        return parallelism;
    }

    @Override
    public Scheduler getOrInitialize(NamedAggregate namedAggregate) {
        MaterializedNamedAggregate key =
                Objects.requireNonNull(namedAggregate, "namedAggregate").materialize();
        synchronized (lock) {
            if (terminalSnapshot != null) {
                throw new IllegalStateException(this + " has stopped; cannot create a scheduler for " + key
                        + " (cached types were " + terminalSnapshot.size() + ")");
            }
            return schedulers.computeIfAbsent(key, k -> newScheduler(name + "-" + k.aggregateName()));
        }
    }

    /**
     * On first subscription, closes creation and disposes every cached scheduler gracefully: queued and running tasks
     * still run, no thread is interrupted. Every call returns the same cached termination.
     */
    @Override
    public Mono<Void> stopGracefully() {
        return gracefulStop;
    }

    @Override
    public void forceStop() {
        terminate().forEach(Scheduler::dispose);
        if (sharedPool != null) {
            sharedPool.shutdownNow();
        }
        timer.shutdownNow();
    }

    private Scheduler newScheduler(String schedulerName) {
        return sharedPool == null
                ? PoolScheduler.owning(new WorkerPool(schedulerName, parallelism, timer))
                : PoolScheduler.sharing(schedulerName, sharedPool);
    }

    /** Closes creation and returns the one snapshot of every scheduler ever cached; idempotent. */
    private List<Scheduler> terminate() {
        synchronized (lock) {
            if (terminalSnapshot == null) {
                terminalSnapshot = List.copyOf(schedulers.values());
                schedulers.clear();
            }
            return terminalSnapshot;
        }
    }

    /** The number of schedulers cached and not yet taken by a stop. */
    int size() {
        synchronized (lock) {
            return schedulers.size();
        }
    }

    @Override
    public String toString() {
        return "AggregateSchedulerSupplier[" + name + "]";
    }
}
