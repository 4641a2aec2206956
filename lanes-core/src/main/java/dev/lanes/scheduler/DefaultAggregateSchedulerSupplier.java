package dev.lanes.scheduler;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.internal.Require;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Caches one {@link Schedulers#newParallel(String, int) parallel scheduler} per materialized named aggregate, with
 * {@link #parallelism()} workers named {@code <name>-<aggregateName>-<n>}.
 *
 * <p>Concurrency: the cache, the stopped flag and the terminal snapshot are guarded by one monitor, which both {@link
 * #getOrInitialize} and the stop verbs take. A lookup racing with a stop is either admitted before it, and its
 * scheduler is in the snapshot that stop disposes, or rejected after it; no scheduler escapes disposal.
 *
 * <p>After stop: {@link #getOrInitialize} throws {@link IllegalStateException} naming the supplier; a holder of an old
 * scheduler gets Reactor's {@link java.util.concurrent.RejectedExecutionException} when it schedules onto it.
 */
public final class DefaultAggregateSchedulerSupplier implements AggregateSchedulerSupplier {
    private final String name;
    private final int parallelism;
    private final Object lock = new Object();
    private final Map<MaterializedNamedAggregate, Scheduler> schedulers = new HashMap<>();
    private @Nullable List<Scheduler> terminalSnapshot;
    private final Mono<Void> gracefulStop;

    /** A supplier whose schedulers have {@link Schedulers#DEFAULT_POOL_SIZE} workers each. */
    public DefaultAggregateSchedulerSupplier(String name) {
        this(name, Schedulers.DEFAULT_POOL_SIZE);
    }

    /**
     * @param name prefix of every worker thread name
     * @param parallelism workers per aggregate type's scheduler
     * @throws IllegalArgumentException naming the value if {@code name} is blank or {@code parallelism <= 0}
     */
    public DefaultAggregateSchedulerSupplier(String name, int parallelism) {
        this.name = Require.notBlank(name, "name");
        this.parallelism = Require.positive(parallelism, "parallelism");
        this.gracefulStop = Mono.defer(() -> Flux.fromIterable(terminate())
                        .flatMap(Scheduler::disposeGracefully)
                        .then())
                .cache();
    }

    public String name() {
        return name;
    }

    public int parallelism() {
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
            return schedulers.computeIfAbsent(
                    key, k -> Schedulers.newParallel(name + "-" + k.aggregateName(), parallelism));
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
    public int size() {
        synchronized (lock) {
            return schedulers.size();
        }
    }

    @Override
    public String toString() {
        return "AggregateSchedulerSupplier[" + name + "]";
    }
}
