package dev.lanes.opentelemetry;

import java.time.Instant;

/**
 * Epoch nanoseconds from the monotonic clock, anchored once: every span of one tracing is timed on it, so a lane's
 * steps fit within the lane's span even when the wall clock moves.
 */
final class SpanClock {
    private final long anchorEpochNanos;
    private final long anchorNanoTime;

    SpanClock() {
        Instant now = Instant.now();
        this.anchorNanoTime = System.nanoTime();
        this.anchorEpochNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
    }

    long nanos() {
        return anchorEpochNanos + (System.nanoTime() - anchorNanoTime);
    }
}
