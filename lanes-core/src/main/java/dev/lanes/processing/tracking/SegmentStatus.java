package dev.lanes.processing.tracking;

import dev.lanes.eventsourcing.Segment;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One segment of a tracking processor as an operator sees it ({@link TrackingOperations#status}).
 *
 * @param processor the processor's name
 * @param segment which segment
 * @param owner the instance holding its claim, or null when none does (or its claim expired)
 * @param checkpoint the last checkpoint saved
 * @param head the position of the segment's last stream stored
 * @param lagStreams how many of the segment's streams are stored above the checkpoint (of every aggregate type: the
 *     store does not know which types the processor reads)
 * @param lagTime how long ago the oldest of them was stored; zero when there is none
 * @param state what the segment does
 * @param parked how many streams of the segment's aggregates the processor has parked
 */
public record SegmentStatus(
        String processor,
        Segment segment,
        @Nullable String owner,
        long checkpoint,
        long head,
        long lagStreams,
        Duration lagTime,
        State state,
        int parked) {

    /** What a segment does. */
    public enum State {
        /** Claimed and caught up: nothing of it is stored above the checkpoint. */
        RUNNING,
        /** Claimed, with streams stored above the checkpoint. */
        CATCHING_UP,
        /** Paused by an operator: its owner keeps the claim and reads nothing. */
        PAUSED,
        /** A reset or seek was asked for and its owner has not done it yet. */
        SEEKING,
        /** No instance holds its claim. */
        UNCLAIMED
    }

    public SegmentStatus {
        Objects.requireNonNull(processor, "processor");
        Objects.requireNonNull(segment, "segment");
        Objects.requireNonNull(lagTime, "lagTime");
        Objects.requireNonNull(state, "state");
    }
}
