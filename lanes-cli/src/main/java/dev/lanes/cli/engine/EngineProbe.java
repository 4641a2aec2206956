package dev.lanes.cli.engine;

import dev.lanes.cli.run.Latencies;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the bench observes of its messages: per-id order at handler entry, delivery to the dispatcher, settlement
 * (acknowledged or handed back), latency from creation to acknowledgement, and when every message outside the stuck
 * lane was settled.
 */
final class EngineProbe {
    private final AtomicLongArray[] nextSequence;
    private final Latencies.Stage others;
    private final Latencies.Stage hot;
    private final LongAdder violations = new LongAdder();
    private final LongAdder delivered = new LongAdder();
    private final LongAdder acknowledged = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final AtomicLong othersSettled = new AtomicLong();
    private final long othersExpected;
    private final CountDownLatch othersDone = new CountDownLatch(1);
    private final LongAdder cutStuck = new LongAdder();
    private final LongAdder cutOthers = new LongAdder();
    private final LongAdder handedBackOthers = new LongAdder();
    private volatile long othersDoneAt;
    private volatile boolean stopping;
    private final LongAdder warmup = new LongAdder();
    private volatile long recordFrom = Long.MIN_VALUE;

    /**
     * @param othersExpected messages outside the stuck lane (all of them when no lane is stuck)
     */
    EngineProbe(int types, int ids, long othersExpected, Latencies.Stage others, Latencies.Stage hot) {
        this.nextSequence = new AtomicLongArray[types];
        for (int t = 0; t < types; t++) {
            nextSequence[t] = new AtomicLongArray(ids);
        }
        this.othersExpected = othersExpected;
        this.others = others;
        this.hot = hot;
        if (othersExpected == 0) {
            othersDoneAt = System.nanoTime();
            othersDone.countDown();
        }
    }

    /**
     * At handler entry: the message must come after every message of its id handled so far. A gap is no violation:
     * the messages in it were handed back to the source (lane full, stop), never handled.
     */
    void entered(BenchMessage message) {
        long next = nextSequence[message.type].getAndSet(message.id, message.sequence + 1);
        if (message.sequence < next) {
            violations.increment();
        }
    }

    void delivered(BenchMessage message) {
        delivered.increment();
    }

    void acknowledged(BenchMessage message) {
        if (message.createdAt >= recordFrom) {
            (message.hot ? hot : others).record(System.nanoTime() - message.createdAt);
        } else {
            warmup.increment();
        }
        acknowledged.increment();
        settled(message);
    }

    void rejected(BenchMessage message) {
        rejected.increment();
        if (stopping) {
            (message.stuckLane ? cutStuck : cutOthers).increment();
        } else if (!message.stuckLane) {
            handedBackOthers.increment();
        }
        settled(message);
    }

    /** Latencies of messages created before {@code nanoTime} are not recorded (the warm-up). */
    void recordFrom(long nanoTime) {
        recordFrom = nanoTime;
    }

    /** Messages acknowledged whose latency was left out: created during the warm-up. */
    long warmupMessages() {
        return warmup.sum();
    }

    /** From here on, a message handed back was cut by the stop. */
    void stopping() {
        stopping = true;
    }

    /** Stuck-lane messages the stop handed back. */
    long cutStuck() {
        return cutStuck.sum();
    }

    /** Messages outside the stuck lane handed back while the load ran (their lane was full, under REJECT). */
    long handedBackDuringRun() {
        return handedBackOthers.sum();
    }

    /** Other messages the stop handed back. */
    long cutOthers() {
        return cutOthers.sum();
    }

    private void settled(BenchMessage message) {
        if (!message.stuckLane && othersSettled.incrementAndGet() == othersExpected) {
            othersDoneAt = System.nanoTime();
            othersDone.countDown();
        }
    }

    /**
     * Waits up to {@code nanos} for every message outside the stuck lane to be settled; true when they are, or when the
     * waiting thread was interrupted (it keeps its interrupt status).
     */
    boolean awaitOthers(long nanos) {
        try {
            return othersDone.await(nanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    long othersDoneAt() {
        return othersDoneAt;
    }

    long violations() {
        return violations.sum();
    }

    long delivered() {
        return delivered.sum();
    }

    long acknowledged() {
        return acknowledged.sum();
    }

    long rejected() {
        return rejected.sum();
    }

    long settled() {
        return acknowledged.sum() + rejected.sum();
    }
}
