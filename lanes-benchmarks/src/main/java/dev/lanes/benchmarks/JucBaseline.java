package dev.lanes.benchmarks;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.ExchangeHandler;
import dev.lanes.dispatch.MessageExchange;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/**
 * The hand-written baseline: what a Java engineer could write instead of a lane engine, with {@code
 * java.util.concurrent} only. One lane per aggregate id (a {@link ConcurrentLinkedQueue} and an {@link AtomicBoolean}
 * "scheduled" flag, in a {@link ConcurrentHashMap}); a lane with messages is a task on a fixed thread pool that handles
 * up to {@link #BATCH} messages and then submits itself again if more are queued.
 *
 * <p>Ordering: at most one task per lane is submitted or running (the flag is set by whoever submits it and cleared by
 * the task when its queue is empty), so one id's messages are handled, and acknowledged, one at a time in arrival
 * order. A handler's {@code Mono} that does not terminate while it is subscribed (a delay, I/O) keeps the lane; its
 * termination, on whatever thread, submits the lane again. No worker thread waits for it.
 *
 * <p>An exchange is acknowledged when its handler's {@code Mono} terminates, with an error too (as the chain's {@code
 * doFinally} does). Not there, unlike the engine: per-lane bounds, retries, parking, lane eviction (a lane stays in the
 * map for good), metrics, stop verbs. After the pool is shut down, queued exchanges stay unsettled.
 */
final class JucBaseline<M> {
    /** Messages one lane task handles before it goes to the back of the pool's queue. */
    static final int BATCH = 32;

    private final ExecutorService pool;
    private final ExchangeHandler<M> handler;
    private final Runnable onSettled;
    private final ConcurrentHashMap<AggregateId, Lane> lanes = new ConcurrentHashMap<>();

    /**
     * @param pool runs the lane tasks; may be shared by several baselines (aggregate types)
     * @param onSettled told after each acknowledgement, on the thread that acknowledged
     */
    JucBaseline(ExecutorService pool, ExchangeHandler<M> handler, Runnable onSettled) {
        this.pool = pool;
        this.handler = handler;
        this.onSettled = onSettled;
    }

    /**
     * A fixed pool of {@code threads} daemon threads, named {@code <namePrefix><n>} from 1, with one shared unbounded
     * work queue ({@link Executors#newFixedThreadPool}).
     */
    static ExecutorService newPool(int threads, String namePrefix) {
        AtomicInteger created = new AtomicInteger();
        return Executors.newFixedThreadPool(threads, task -> {
            Thread thread = new Thread(task, namePrefix + created.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Queues the exchange on its id's lane. Thread-safe; calls for one id must come in that id's order. */
    void submit(MessageExchange<M> exchange) {
        Lane lane = lanes.computeIfAbsent(exchange.aggregateId(), id -> new Lane());
        lane.queue.offer(exchange);
        lane.scheduleIfIdle();
    }

    private final class Lane implements Runnable {
        final Queue<MessageExchange<M>> queue = new ConcurrentLinkedQueue<>();
        final AtomicBoolean scheduled = new AtomicBoolean();

        void scheduleIfIdle() {
            if (scheduled.compareAndSet(false, true)) {
                execute();
            }
        }

        /** Runs only while {@code scheduled} is true and no other task of this lane is queued or running. */
        @Override
        public void run() {
            for (int i = 0; i < BATCH; i++) {
                MessageExchange<M> exchange = queue.poll();
                if (exchange == null) {
                    break;
                }
                if (!new Handling(exchange, this).ranToEnd()) {
                    return; // the lane continues from the handler's termination
                }
            }
            if (!queue.isEmpty()) {
                execute(); // more arrived: back of the pool's queue, so other lanes get their turn
                return;
            }
            scheduled.set(false);
            if (!queue.isEmpty()) {
                scheduleIfIdle(); // an offer raced with the clearing above
            }
        }

        void execute() {
            try {
                pool.execute(this);
            } catch (RejectedExecutionException stopped) {
                // the pool was shut down: this lane's exchanges stay unsettled
            }
        }
    }

    /**
     * One handler invocation. It acknowledges at termination, and a handshake on {@code state} decides who continues
     * the lane: the task's loop if the Mono terminated during {@code subscribe}, else the thread that terminated it.
     */
    private final class Handling implements CoreSubscriber<Void> {
        private static final int SUBSCRIBING = 0;
        private static final int ENDED_INSIDE = 1;
        private static final int LEFT = 2;

        private final MessageExchange<M> exchange;
        private final Lane lane;
        private final AtomicInteger state = new AtomicInteger(SUBSCRIBING);

        Handling(MessageExchange<M> exchange, Lane lane) {
            this.exchange = exchange;
            this.lane = lane;
        }

        /** Invokes the handler; true if its Mono already terminated, so the caller's loop continues the lane. */
        boolean ranToEnd() {
            try {
                handler.handle(exchange).subscribe(this);
            } catch (RuntimeException thrown) {
                onError(thrown);
            }
            return !state.compareAndSet(SUBSCRIBING, LEFT);
        }

        @Override
        public void onSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Void unused) {}

        @Override
        public void onError(Throwable error) {
            onComplete(); // acknowledged all the same, as the chain's doFinally does
        }

        @Override
        public void onComplete() {
            exchange.acknowledge();
            onSettled.run();
            if (!state.compareAndSet(SUBSCRIBING, ENDED_INSIDE)) {
                lane.execute(); // the task has left: continue the lane on the pool
            }
        }
    }
}
