package dev.lanes.benchmarks;

import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.ExchangeHandler;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.runtime.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.DefaultAggregateSchedulerSupplier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Wires one {@link Variant} over sources and handlers, starts it, and releases every thread it made.
 *
 * <p>Both sides get the same worker count, {@link #WORKERS} ({@code Schedulers.DEFAULT_POOL_SIZE}, i.e. available
 * processors, what a {@code DefaultAggregateSchedulerSupplier} uses by default), and one scheduler per aggregate type
 * (except {@link Variant#KEYED_SHARED_SCHEDULER}). Worker threads are named {@code <threadPrefix>-<aggregate>-<n>}.
 */
final class Wiring implements AutoCloseable {
    static final int WORKERS = Schedulers.DEFAULT_POOL_SIZE;
    private static final Duration PROMPTLY = Duration.ofSeconds(30);

    private final Variant variant;
    private final int parallelism;
    private final String threadPrefix;
    private final @Nullable AggregateSchedulerSupplier supplier;
    private final List<Scheduler> chainSchedulers = new ArrayList<>();
    private final List<AggregateDispatcher<Integer>> dispatchers = new ArrayList<>();
    private final List<Flux<Void>> chains = new ArrayList<>();
    private final List<Disposable> subscriptions = new ArrayList<>();
    private final AtomicReference<@Nullable Throwable> chainError = new AtomicReference<>();

    /**
     * @param parallelism G: the engine's lane parallelism ({@code HASHED} groups) and the chain's groups and flatMap
     *     concurrency
     */
    Wiring(Variant variant, int parallelism, String threadPrefix) {
        this.variant = variant;
        this.parallelism = parallelism;
        this.threadPrefix = threadPrefix;
        if (variant.strategy() == null) {
            this.supplier = null;
        } else if (variant.sharedScheduler()) {
            this.supplier = new SharedSchedulerSupplier(Schedulers.newParallel(threadPrefix + "-shared", WORKERS));
        } else {
            this.supplier = new DefaultAggregateSchedulerSupplier(threadPrefix, WORKERS);
        }
    }

    /** Adds one dispatcher (engine: prepared, not started) or one chain (not subscribed) for {@code type}. */
    void wire(NamedAggregate type, Flux<? extends MessageExchange<Integer>> source, ExchangeHandler<Integer> handler) {
        LaneStrategy strategy = variant.strategy();
        if (strategy == null) {
            Scheduler scheduler = Schedulers.newParallel(threadPrefix + "-" + type.aggregateName(), WORKERS);
            chainSchedulers.add(scheduler);
            chains.add(reactorChain(source, handler, scheduler, parallelism));
            return;
        }
        AggregateDispatcher<Integer> dispatcher = AggregateDispatcher.<Integer>builder("BenchDispatcher", type)
                .source(source)
                .handler(handler)
                .schedulers(Objects.requireNonNull(supplier))
                .settings(LaneSettings.DEFAULT.withStrategy(strategy).withParallelism(parallelism))
                .build();
        dispatcher.prepare(RuntimeContext.standalone()).block(PROMPTLY);
        dispatchers.add(dispatcher);
    }

    /**
     * The original's chain, literally (reference section 4.3 steps 5-7): groups by {@code floorMod(id.hashCode(), G)},
     * at most G groups subscribed, each group published on the type's scheduler and handled one at a time; the exchange
     * is acknowledged when its handler's Mono terminated ({@code doFinally}, as the original completes its tracked
     * exchange).
     */
    static <M> Flux<Void> reactorChain(
            Flux<? extends MessageExchange<M>> source, ExchangeHandler<M> handler, Scheduler scheduler, int groups) {
        return source.groupBy(
                        exchange -> Math.floorMod(exchange.aggregateId().id().hashCode(), groups))
                .flatMap(
                        group -> group.publishOn(scheduler)
                                .concatMap(exchange -> Mono.defer(() -> handler.handle(exchange))
                                        .doFinally(signal -> exchange.acknowledge()))
                                .then(),
                        groups,
                        groups);
    }

    /** Opens demand: engine dispatchers start, chains are subscribed (each pulls from its source from here on). */
    void start() {
        dispatchers.forEach(AggregateDispatcher::start);
        for (Flux<Void> chain : chains) {
            subscriptions.add(chain.subscribe(null, error -> chainError.compareAndSet(null, error)));
        }
    }

    /** The first error a chain terminated with; the engine reports its faults through its own logging. */
    @Nullable
    Throwable chainError() {
        return chainError.get();
    }

    /** Stops dispatchers and chains, disposes every scheduler and waits until their worker threads have ended. */
    @Override
    public void close() {
        for (AggregateDispatcher<Integer> dispatcher : dispatchers) {
            dispatcher.forceStop();
        }
        subscriptions.forEach(Disposable::dispose);
        if (supplier != null) {
            supplier.forceStop();
        }
        chainSchedulers.forEach(Scheduler::dispose);
        Threads.awaitGone(threadPrefix + "-", Duration.ofSeconds(10));
    }
}
