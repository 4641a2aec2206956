package dev.lanes.eventsourcing;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * How far a segment's reader is behind the store ({@link EventStore#lag}).
 *
 * @param head the position of the segment's last stream stored (its checkpoint when it has none above it)
 * @param streams how many of the segment's streams are stored above the checkpoint
 * @param oldest when the first of them was stored, or null when there is none
 */
public record SegmentLag(long head, long streams, @Nullable Instant oldest) {
    public SegmentLag {
        if (head < 0 || streams < 0) {
            throw new IllegalArgumentException("head and streams must not be negative: " + head + ", " + streams);
        }
    }
}
