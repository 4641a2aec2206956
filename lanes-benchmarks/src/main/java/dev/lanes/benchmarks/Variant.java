package dev.lanes.benchmarks;

import dev.lanes.dispatch.LaneStrategy;
import org.jspecify.annotations.Nullable;

/** What dispatches the exchanges in a benchmark run. */
public enum Variant {
    /**
     * The literal chain of the original: {@code groupBy(floorMod(id.hashCode(), G)).flatMap(g ->
     * g.publishOn(scheduler).concatMap(handler), G, G)}, one {@code Schedulers.newParallel} per aggregate type.
     */
    REACTOR_CHAIN(null, false),
    /** The engine, {@link LaneStrategy#HASHED} lanes, one scheduler per type from a DefaultAggregateSchedulerSupplier. */
    HASHED(LaneStrategy.HASHED, false),
    /** The engine, {@link LaneStrategy#KEYED} lanes, one scheduler per type from a DefaultAggregateSchedulerSupplier. */
    KEYED(LaneStrategy.KEYED, false),
    /** The engine, {@link LaneStrategy#KEYED} lanes, every type on one shared scheduler (many-types scenario only). */
    KEYED_SHARED_SCHEDULER(LaneStrategy.KEYED, true);

    private final @Nullable LaneStrategy strategy;
    private final boolean sharedScheduler;

    Variant(@Nullable LaneStrategy strategy, boolean sharedScheduler) {
        this.strategy = strategy;
        this.sharedScheduler = sharedScheduler;
    }

    /** The engine's lane strategy, or {@code null} for the Reactor chain. */
    @Nullable
    LaneStrategy strategy() {
        return strategy;
    }

    boolean sharedScheduler() {
        return sharedScheduler;
    }
}
