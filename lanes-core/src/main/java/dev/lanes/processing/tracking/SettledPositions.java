package dev.lanes.processing.tracking;

import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The positions a tracking processor has handed to its lanes and not yet seen settled, and the checkpoint they allow:
 * the highest position up to which everything offered is settled (as Kafka commits only contiguous offsets). Lanes
 * settle out of order, so a settled position above an unsettled one does not move the checkpoint.
 *
 * <p>{@link #offered} and {@link #checkpoint} are called by the reading loop only (one at a time); {@link #settled}
 * from any lane thread.
 */
final class SettledPositions {
    private final ConcurrentSkipListSet<Long> unsettled = new ConcurrentSkipListSet<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile long lastOffered;

    SettledPositions(long checkpoint) {
        this.lastOffered = checkpoint;
    }

    /** {@code position} was read; {@code tracked} when it went to a lane (and will be settled), else it is settled. */
    void offered(long position, boolean tracked) {
        if (tracked) {
            unsettled.add(position);
            inFlight.incrementAndGet();
        }
        lastOffered = position;
    }

    /** A lane settled the stream at {@code position} (handled or parked). */
    void settled(long position) {
        if (unsettled.remove(position)) {
            inFlight.decrementAndGet();
        }
    }

    /** Offered, not yet settled. */
    int inFlight() {
        return inFlight.get();
    }

    /** Every position offered up to this one is settled. */
    long checkpoint() {
        long offered = lastOffered;
        Long oldest = unsettled.ceiling(Long.MIN_VALUE);
        return oldest == null ? offered : Math.min(offered, oldest - 1);
    }
}
