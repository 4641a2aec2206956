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
    /** The engine, {@link LaneStrategy#HASHED} lanes, one scheduler per type from AggregateSchedulers.perType. */
    HASHED(LaneStrategy.HASHED, false),
    /** The engine, {@link LaneStrategy#KEYED} lanes, one scheduler per type from AggregateSchedulers.perType. */
    KEYED(LaneStrategy.KEYED, false),
    /**
     * The engine, {@link LaneStrategy#HASHED} lanes, every type's scheduler a view of one shared pool of W workers
     * ({@code AggregateSchedulers.sharedPool}).
     */
    HASHED_SHARED_POOL(LaneStrategy.HASHED, true),
    /**
     * The engine, {@link LaneStrategy#KEYED} lanes, every type's scheduler a view of one shared pool of W workers
     * ({@code AggregateSchedulers.sharedPool}).
     */
    KEYED_SHARED_POOL(LaneStrategy.KEYED, true),
    /**
     * The hand-written {@link JucBaseline}: a lane per aggregate id on a fixed pool of {@link Wiring#WORKERS} threads.
     * One pool for <em>all</em> aggregate types (as the outside review wrote it), not one per type: in the many-types
     * scenario it has W threads in all where {@code REACTOR_CHAIN}, {@code HASHED} and {@code KEYED} have W per type.
     */
    JUC_BASELINE(null, false),
    /**
     * No dispatcher: the thread that starts the wiring pulls the source and calls the handler itself, one exchange
     * after the other, each Mono awaited before the next call. The single-thread reference of {@link
     * CpuHandlerBenchmark}.
     */
    DIRECT_LOOP(null, false);

    private final @Nullable LaneStrategy strategy;
    private final boolean sharedScheduler;

    Variant(@Nullable LaneStrategy strategy, boolean sharedScheduler) {
        this.strategy = strategy;
        this.sharedScheduler = sharedScheduler;
    }

    /** The engine's lane strategy, or {@code null} for the variants that are not the engine. */
    @Nullable
    LaneStrategy strategy() {
        return strategy;
    }

    boolean sharedScheduler() {
        return sharedScheduler;
    }
}
