package dev.lanes.processing.tracking;

import dev.lanes.eventsourcing.Segment;
import dev.lanes.internal.Require;
import java.time.Duration;

/**
 * How a {@link TrackingProcessor} reads the store and holds its claim.
 *
 * @param pageSize streams read per {@code readAll} call
 * @param maxInFlight streams read but not yet settled (handled or parked) before the processor stops reading: what
 *     bounds its memory while it catches up; at least {@code pageSize}
 * @param pollInterval how long it waits before reading again after a short page (it is caught up), or before trying
 *     again for a claim another instance holds, or after the store failed
 * @param lease how long a claim lasts without renewal; renewed every third of it, so an instance that stops renewing
 *     (a crash, a pause) hands the processor over to another at most one lease later
 * @param checkpointInterval how often the settled position is saved while running (and once more after a graceful
 *     stop); a crash redelivers what was settled after the last save
 * @param segments how many {@link dev.lanes.eventsourcing.Segment segments} the stream is split into, each with its
 *     own checkpoint and claim, shared by the running instances: a power of two from 1 (the whole stream, one reader)
 *     to {@link dev.lanes.eventsourcing.Segment#MAX_COUNT}. It cannot change for a processor that saved checkpoints:
 *     the processor refuses to start, naming both counts
 */
public record TrackingSettings(
        int pageSize,
        int maxInFlight,
        Duration pollInterval,
        Duration lease,
        Duration checkpointInterval,
        int segments) {

    /** Pages of 256, 4,096 in flight, polling every 100 ms, leases of 30 s, checkpoints every 200 ms, 1 segment. */
    public static final TrackingSettings DEFAULT =
            new TrackingSettings(256, 4096, Duration.ofMillis(100), Duration.ofSeconds(30), Duration.ofMillis(200), 1);

    /** One segment. */
    public TrackingSettings(
            int pageSize, int maxInFlight, Duration pollInterval, Duration lease, Duration checkpointInterval) {
        this(pageSize, maxInFlight, pollInterval, lease, checkpointInterval, 1);
    }

    public TrackingSettings {
        Require.positive(pageSize, "pageSize");
        Require.positive(maxInFlight, "maxInFlight");
        if (maxInFlight < pageSize) {
            throw new IllegalArgumentException(
                    "maxInFlight must be at least pageSize: " + maxInFlight + " < " + pageSize);
        }
        Require.positive(pollInterval, "pollInterval");
        Require.positive(lease, "lease");
        Require.positive(checkpointInterval, "checkpointInterval");
        if (segments < 1 || segments > Segment.MAX_COUNT || Integer.bitCount(segments) != 1) {
            throw new IllegalArgumentException(
                    "segments must be a power of two from 1 to " + Segment.MAX_COUNT + ": " + segments);
        }
    }

    public TrackingSettings withPageSize(int pageSize) {
        return new TrackingSettings(pageSize, maxInFlight, pollInterval, lease, checkpointInterval, segments);
    }

    public TrackingSettings withMaxInFlight(int maxInFlight) {
        return new TrackingSettings(pageSize, maxInFlight, pollInterval, lease, checkpointInterval, segments);
    }

    public TrackingSettings withPollInterval(Duration pollInterval) {
        return new TrackingSettings(pageSize, maxInFlight, pollInterval, lease, checkpointInterval, segments);
    }

    public TrackingSettings withLease(Duration lease) {
        return new TrackingSettings(pageSize, maxInFlight, pollInterval, lease, checkpointInterval, segments);
    }

    public TrackingSettings withSegments(int segments) {
        return new TrackingSettings(pageSize, maxInFlight, pollInterval, lease, checkpointInterval, segments);
    }

    public TrackingSettings withCheckpointInterval(Duration checkpointInterval) {
        return new TrackingSettings(pageSize, maxInFlight, pollInterval, lease, checkpointInterval, segments);
    }
}
