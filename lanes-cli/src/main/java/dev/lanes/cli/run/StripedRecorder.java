package dev.lanes.cli.run;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * A distribution of values recorded from many threads, each thread into a {@link SingleWriterRecorder} of its own, so
 * recording threads share no cache line. (A {@code ConcurrentHistogram} has every writer increment one shared counter
 * per value: in the demo its contention alone took about a tenth of the workers' time.)
 *
 * <p><b>Threads.</b> {@link #record} from any thread, never blocked by a reader. The readers ({@link #total}, {@link
 * #takeInterval}, {@link #reset}) take this object's monitor: each folds what every thread recorded since the last fold
 * into the totals it keeps, so a value is counted exactly once by each of them.
 */
final class StripedRecorder {
    private static final int SIGNIFICANT_DIGITS = 3;

    private final List<SingleWriterRecorder> recorders = new CopyOnWriteArrayList<>();
    private final ThreadLocal<SingleWriterRecorder> own = ThreadLocal.withInitial(this::join);

    /** Every value folded since the last {@link #reset}. Guarded by this. */
    private final Histogram total = new Histogram(SIGNIFICANT_DIGITS);

    /** Every value folded since the last {@link #takeInterval} or {@link #reset}. Guarded by this. */
    private final Histogram interval = new Histogram(SIGNIFICANT_DIGITS);

    /** Records a value (negative values count as 0). */
    void record(long value) {
        own.get().recordValue(Math.max(0, value));
    }

    /** A copy of every value recorded since the last {@link #reset}. */
    synchronized Histogram total() {
        fold();
        return total.copy();
    }

    /** The values recorded since the last call (or {@link #reset}); the next interval starts empty. */
    synchronized Histogram takeInterval() {
        fold();
        Histogram taken = interval.copy();
        interval.reset();
        return taken;
    }

    /** Forgets every value recorded so far (after a warm-up). */
    synchronized void reset() {
        fold();
        total.reset();
        interval.reset();
    }

    private void fold() {
        for (SingleWriterRecorder recorder : recorders) {
            Histogram recent = recorder.getIntervalHistogram();
            total.add(recent);
            interval.add(recent);
        }
    }

    private SingleWriterRecorder join() {
        SingleWriterRecorder recorder = new SingleWriterRecorder(SIGNIFICANT_DIGITS);
        recorders.add(recorder);
        return recorder;
    }
}
