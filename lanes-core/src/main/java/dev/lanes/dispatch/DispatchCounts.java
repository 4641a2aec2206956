package dev.lanes.dispatch;

import dev.lanes.dispatch.DispatcherMetrics.LaneRecorder;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * What one {@link AggregateDispatcher} counts: the slots its admitted exchanges hold, its outcome totals, its hottest
 * ids, and the timings it hands to its {@link LaneRecorder}. Counting only: it decides nothing.
 *
 * <p>Threads: the totals and the slot count are safe from any thread (exact totals); {@link #sampleHotKey} is called
 * serially, by the dispatcher's producer side; {@link #attemptStarted} and {@link #handlerNanos} by an envelope's
 * current lane owner. With {@link DispatcherMetrics#NONE} nothing is timed: the clock is never read.
 */
final class DispatchCounts {
    private static final int HOT_KEY_CAPACITY = 32;
    private static final long HOT_KEY_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final AtomicInteger admitted = new AtomicInteger();
    private final LongAdder handled = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder parked = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder cancelled = new LongAdder();
    private final HotKeyTracker hotKeys;
    private final int hotKeySampling;
    private final boolean timed;
    private final LongSupplier nanoTime;
    private volatile LaneRecorder recorder = LaneRecorder.NONE;
    /** Admissions until the next hot-id sample; the producer side's only. */
    private int untilHotKeySample;

    DispatchCounts(boolean timed, LongSupplier nanoTime, int hotKeySampling) {
        this.timed = timed;
        this.nanoTime = nanoTime;
        this.hotKeySampling = hotKeySampling;
        this.untilHotKeySample = hotKeySampling;
        this.hotKeys = new HotKeyTracker(HOT_KEY_CAPACITY, HOT_KEY_WINDOW_NANOS, nanoTime);
    }

    /** Where timings and outcomes go from now on (the dispatcher binds it once, while preparing). */
    void bind(LaneRecorder bound) {
        this.recorder = bound;
    }

    /** The dispatcher stopped (or its preparation failed): the recorder releases its gauges. */
    void closeRecorder() {
        recorder.close();
    }

    // ---------------------------------------------------------------- slots

    /** Holds slots for exchanges being admitted. */
    void reserve(int slots) {
        admitted.addAndGet(slots);
    }

    /** Frees slots of settled (or unadmitted) exchanges: how many stay held. */
    int release(int slots) {
        return admitted.addAndGet(-slots);
    }

    /** Slots held now. */
    int admitted() {
        return admitted.get();
    }

    // ---------------------------------------------------------------- timings

    /** The time an exchange is admitted at, for its queue wait; 0 when nothing is timed. */
    long admittedAt() {
        return timed ? nanoTime.getAsLong() : 0L;
    }

    /** An attempt starts: its first records the queue wait; each is timed from now. */
    void attemptStarted(Envelope<?> envelope) {
        if (timed) {
            long now = nanoTime.getAsLong();
            if (envelope.attempts == 0) {
                recorder.queueWait(now - envelope.admittedAt);
            }
            envelope.startedAt = now;
        }
    }

    /** How long the envelope's current attempt has run; 0 when nothing is timed. */
    long handlerNanos(Envelope<?> envelope) {
        return timed ? nanoTime.getAsLong() - envelope.startedAt : 0L;
    }

    /** One admission in {@code hotKeySampling} is recorded for the hottest ids. Producer side only. */
    void sampleHotKey(MessageExchange<?> exchange) {
        if (--untilHotKeySample == 0) {
            untilHotKeySample = hotKeySampling;
            hotKeys.record(exchange.aggregateId().id());
        }
    }

    // ---------------------------------------------------------------- outcomes

    /** An exchange was acknowledged, handled or parked ({@code parked}), after a handler that ran that long. */
    void acknowledged(boolean parked, long handlerNanos) {
        (parked ? this.parked : handled).increment();
        recorder.outcome(parked ? Outcome.PARKED : Outcome.HANDLED, handlerNanos);
    }

    /** An attempt failed and is retried. */
    void retried(long handlerNanos) {
        retried.increment();
        recorder.outcome(Outcome.RETRIED, handlerNanos);
    }

    /** An exchange went back to its source unhandled: {@code CANCELLED} if its handler had started, else rejected. */
    void unhandled(Outcome outcome) {
        (outcome == Outcome.CANCELLED ? cancelled : rejected).increment();
        recorder.outcome(outcome, 0);
    }

    /**
     * A live view of the totals and of the lanes' depths (see {@link AggregateDispatcher#stats()}): it scans the lanes
     * that hold work; the per-lane figures are racy reads.
     */
    DispatcherStats stats(LaneRegistry<?> lanes) {
        long[] scan = new long[4]; // deepest, sum, lanes holding work, lanes handling now
        lanes.forEach(lane -> {
            int depth = lane.depth();
            scan[0] = Math.max(scan[0], depth);
            scan[1] += depth;
            scan[2] += depth > 0 ? 1 : 0;
            scan[3] += lane.current != null ? 1 : 0;
        });
        double mean = scan[2] == 0 ? 0 : (double) scan[1] / scan[2];
        return new DispatcherStats(
                admitted.get(),
                (int) scan[3],
                (int) scan[2],
                (int) scan[0],
                mean == 0 ? 0 : scan[0] / mean,
                handled.sum(),
                retried.sum(),
                parked.sum(),
                rejected.sum(),
                cancelled.sum(),
                hotKeys.hottest(hotKeySampling));
    }
}
