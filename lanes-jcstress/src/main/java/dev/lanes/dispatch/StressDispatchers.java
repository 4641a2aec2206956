package dev.lanes.dispatch;

import dev.lanes.api.NamedAggregate;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import java.util.Objects;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Running dispatchers for the engine checks, cheap enough for one per iteration: one hashed lane, a budget of one
 * exchange, no thread of their own, and cancellations (a force stop's) run inline on the stopping thread.
 */
final class StressDispatchers {
    private static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");
    private static final LaneSettings ONE_LANE =
            LaneSettings.DEFAULT.withParallelism(1).withBounds(1, 1);

    private StressDispatchers() {}

    /**
     * A dispatcher whose lanes run on {@link Schedulers#immediate()}: the thread that delivers an exchange admits it,
     * drains its lane and calls the handler before {@code deliver} returns.
     */
    static AggregateDispatcher<String> inline(ManualSource source, ExchangeHandler<String> handler) {
        return running(source, handler, Schedulers.immediate());
    }

    /**
     * A dispatcher whose lanes are handed to {@code worker}, which keeps them for a check's actor to run, as a worker
     * thread of the aggregate type's scheduler would.
     */
    static AggregateDispatcher<String> handingOff(
            ManualSource source, ExchangeHandler<String> handler, HandOff worker) {
        return running(source, handler, worker);
    }

    private static AggregateDispatcher<String> running(
            ManualSource source, ExchangeHandler<String> handler, Scheduler scheduler) {
        AggregateDispatcher<String> dispatcher = AggregateDispatcher.<String>builder("jcstress", ORDER)
                .source(source)
                .handler(handler)
                .schedulers(new Fixed(scheduler))
                .settings(ONE_LANE)
                .cleanup(Schedulers.immediate())
                .build();
        dispatcher.prepare(RuntimeContext.standalone()).block();
        dispatcher.start();
        return dispatcher;
    }

    /** A scheduler that runs nothing itself: it keeps the lane last handed to it for a check's actor to run. */
    static final class HandOff implements Scheduler, Executor {
        private volatile @Nullable Runnable lane;

        @Override
        public void execute(Runnable task) {
            lane = task;
        }

        @Override
        public Disposable schedule(Runnable task) {
            execute(task);
            return Disposables.single();
        }

        @Override
        public Worker createWorker() {
            throw new UnsupportedOperationException("the checks run handed-off lanes themselves");
        }

        /** Runs the lane handed off last, as its owner, on the calling thread. */
        void runLane() {
            Runnable task = Objects.requireNonNull(lane, "no lane was handed off");
            lane = null;
            task.run();
        }
    }

    /** Hands out one scheduler for every aggregate type; nothing to stop. */
    private static final class Fixed implements AggregateSchedulerSupplier {
        private final Scheduler scheduler;

        Fixed(Scheduler scheduler) {
            this.scheduler = scheduler;
        }

        @Override
        public Scheduler getOrInitialize(NamedAggregate namedAggregate) {
            return scheduler;
        }

        @Override
        public Mono<Void> stopGracefully() {
            return Mono.empty();
        }

        @Override
        public void forceStop() {}
    }
}
