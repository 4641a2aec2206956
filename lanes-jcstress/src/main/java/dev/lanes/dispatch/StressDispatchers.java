package dev.lanes.dispatch;

import dev.lanes.api.NamedAggregate;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Running dispatchers for the engine checks, cheap enough for one per iteration: one hashed lane, no thread of their
 * own, and cancellations (a force stop's) run inline on the stopping thread.
 */
final class StressDispatchers {
    private static final NamedAggregate ORDER = StressExchange.ORDER;

    private StressDispatchers() {}

    /**
     * A dispatcher whose lanes run on {@link Schedulers#immediate()}, with a budget of one exchange: the thread that
     * delivers an exchange admits it, drains its lane and calls the handler before {@code deliver} returns.
     */
    static AggregateDispatcher<String> inline(ManualSource source, ExchangeHandler<String> handler) {
        return running(source, handler, Schedulers.immediate(), 1);
    }

    /**
     * A dispatcher with a budget of {@code maxQueued} exchanges, all in its one lane, whose lanes (and requests that come
     * due during its first one) are handed to {@code worker}, which keeps them for a check's actor to run, as a worker
     * thread of the aggregate type's scheduler would.
     */
    static AggregateDispatcher<String> handingOff(
            ManualSource source, ExchangeHandler<String> handler, HandOff worker, int maxQueued) {
        return running(source, handler, worker, maxQueued);
    }

    private static AggregateDispatcher<String> running(
            ManualSource source, ExchangeHandler<String> handler, Scheduler scheduler, int maxQueued) {
        AggregateDispatcher<String> dispatcher = AggregateDispatcher.<String>builder("jcstress", ORDER)
                .source(source)
                .handler(handler)
                .schedulers(new Fixed(scheduler))
                .settings(LaneSettings.DEFAULT.withParallelism(1).withBounds(maxQueued, maxQueued))
                .cleanup(Schedulers.immediate())
                .build();
        dispatcher.prepare(RuntimeContext.standalone()).block();
        dispatcher.start();
        return dispatcher;
    }

    /**
     * A scheduler that runs nothing itself: it queues what is handed to it (lanes that became ready, a lane whose
     * handler ended elsewhere) for a check's actor to run, in order, as a worker thread of the type's scheduler would.
     */
    static final class HandOff implements Scheduler, Executor {
        private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();

        @Override
        public void execute(Runnable task) {
            tasks.offer(task);
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

        /** Takes the task handed off first and not yet taken: the caller runs it as the lane's owner. */
        Runnable take() {
            return Objects.requireNonNull(tasks.poll(), "nothing was handed off");
        }

        /** Runs the task handed off first, as its owner, on the calling thread. */
        void runLane() {
            take().run();
        }

        /**
         * Runs the intake's drain that a delivery outside a request handed off: the exchanges delivered so far are
         * admitted, and the lanes they made ready are handed off behind it.
         */
        void admitDelivered() {
            Runnable drain = take();
            if (isOwner(drain)) {
                throw new IllegalStateException("a lane was handed off where the intake's drain was expected");
            }
            drain.run();
        }

        /**
         * Runs what was handed off until nothing is left; returns how many lane owners it ran (the intake's drains run
         * too, uncounted: they admit, they own no lane).
         */
        int runAll() {
            int owners = 0;
            for (@Nullable Runnable task; (task = tasks.poll()) != null; ) {
                owners += isOwner(task) ? 1 : 0;
                task.run();
            }
            return owners;
        }

        private static boolean isOwner(Runnable task) {
            return task instanceof Lane<?> || task instanceof LaneBatch<?>;
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
