package dev.lanes.benchmarks;

import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.ExchangeHandler;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
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
 * <p>Every variant gets the same worker count W, {@link #WORKERS} ({@code Schedulers.DEFAULT_POOL_SIZE}, i.e. available
 * processors, what {@code AggregateSchedulers.perType} uses by default). The chain and the engine's {@code
 * HASHED} and {@code KEYED} have one scheduler of W per aggregate type, threads named {@code
 * <threadPrefix>-<aggregate>-<n>}. {@link Variant#KEYED_SHARED_POOL} and {@link Variant#HASHED_SHARED_POOL} ({@code <threadPrefix>-shared-<n>}) and
 * {@link Variant#JUC_BASELINE} ({@code <threadPrefix>-baseline-<n>}) have one pool of W for all types. {@link
 * Variant#DIRECT_LOOP} has none: it runs on the thread that calls {@link #start}.
 *
 * <p>The baseline's intake is bounded like the engine's: at most {@code maxQueued} (16,384) exchanges in flight per
 * type. {@code -Dlanes.baseline.window=0} removes the bound ({@code -jvmArgsAppend -Dlanes.baseline.window=0} for JMH).
 */
final class Wiring implements AutoCloseable {
    static final int WORKERS = Schedulers.DEFAULT_POOL_SIZE;
    private static final Duration PROMPTLY = Duration.ofSeconds(30);
    static final int BASELINE_WINDOW = Integer.getInteger("lanes.baseline.window", LaneSettings.DEFAULT.maxQueued());

    private final Variant variant;
    private final int parallelism;
    private final String threadPrefix;
    private final @Nullable AggregateSchedulerSupplier supplier;
    private final List<Scheduler> chainSchedulers = new ArrayList<>();
    private final List<AggregateDispatcher<Integer>> dispatchers = new ArrayList<>();
    private final List<Flux<Void>> chains = new ArrayList<>();
    private final List<Disposable> subscriptions = new ArrayList<>();
    private final @Nullable ExecutorService baselinePool;
    private final List<BaselineIntake<?>> baselineIntakes = new ArrayList<>();
    /** Baselines and direct loops, subscribed to their sources by {@link #start}. */
    private final List<Runnable> subscribeAtStart = new ArrayList<>();

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
            this.supplier = AggregateSchedulers.sharedPool(threadPrefix, WORKERS);
        } else {
            this.supplier = AggregateSchedulers.perType(threadPrefix, WORKERS);
        }
        this.baselinePool =
                variant == Variant.JUC_BASELINE ? JucBaseline.newPool(WORKERS, threadPrefix + "-baseline-") : null;
    }

    /** Adds one dispatcher (engine: prepared, not started), chain, baseline or loop (not started) for {@code type}. */
    void wire(NamedAggregate type, Flux<? extends MessageExchange<Integer>> source, ExchangeHandler<Integer> handler) {
        switch (variant) {
            case REACTOR_CHAIN -> wireChain(type, source, handler);
            case JUC_BASELINE -> wireBaseline(source, handler);
            case DIRECT_LOOP ->
                subscribeAtStart.add(() -> source.subscribe(new DirectLoop<>(handler, this::sourceFailed)));
            default -> wireEngine(type, source, handler, Objects.requireNonNull(variant.strategy()));
        }
    }

    private void wireChain(
            NamedAggregate type, Flux<? extends MessageExchange<Integer>> source, ExchangeHandler<Integer> handler) {
        Scheduler scheduler = Schedulers.newParallel(threadPrefix + "-" + type.aggregateName(), WORKERS);
        chainSchedulers.add(scheduler);
        chains.add(reactorChain(source, handler, scheduler, parallelism));
    }

    private void wireBaseline(Flux<? extends MessageExchange<Integer>> source, ExchangeHandler<Integer> handler) {
        BaselineIntake<Integer> intake = new BaselineIntake<>(
                Objects.requireNonNull(baselinePool), handler, BASELINE_WINDOW, this::sourceFailed);
        baselineIntakes.add(intake);
        subscribeAtStart.add(() -> source.subscribe(intake));
    }

    private void wireEngine(
            NamedAggregate type,
            Flux<? extends MessageExchange<Integer>> source,
            ExchangeHandler<Integer> handler,
            LaneStrategy strategy) {
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

    /**
     * Opens demand: engine dispatchers start, chains and baselines are subscribed (each pulls from its source from here
     * on). {@link Variant#DIRECT_LOOP} handles its sources here, on the calling thread, and returns when they are done
     * (with a synchronous source such as {@link Feed#flux}).
     */
    void start() {
        dispatchers.forEach(AggregateDispatcher::start);
        for (Flux<Void> chain : chains) {
            subscriptions.add(chain.subscribe(null, this::sourceFailed));
        }
        subscribeAtStart.forEach(Runnable::run);
    }

    private void sourceFailed(Throwable error) {
        chainError.compareAndSet(null, error);
    }

    /** The dispatchers' stats and the live worker threads, for a stalled run's report. */
    String describe() {
        StringBuilder out = new StringBuilder();
        for (AggregateDispatcher<Integer> dispatcher : dispatchers) {
            out.append(dispatcher.namedAggregate())
                    .append(' ')
                    .append(dispatcher.state())
                    .append(' ')
                    .append(dispatcher.stats())
                    .append('\n');
        }
        Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith(threadPrefix + "-"))
                .forEach(thread -> out.append("live ")
                        .append(thread.getName())
                        .append(' ')
                        .append(thread.getState())
                        .append('\n'));
        return out.toString();
    }

    /**
     * The first error a chain, baseline or loop terminated with; the engine reports its faults through its own logging.
     */
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
        baselineIntakes.forEach(BaselineIntake::cancel);
        if (baselinePool != null) {
            baselinePool.shutdownNow();
        }
        if (supplier != null) {
            supplier.forceStop();
        }
        chainSchedulers.forEach(Scheduler::dispose);
        Threads.awaitGone(threadPrefix + "-", Duration.ofSeconds(10));
    }
}
