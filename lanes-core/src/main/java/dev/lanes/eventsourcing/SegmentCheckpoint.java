package dev.lanes.eventsourcing;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link CheckpointStore} holds for one segment of a tracking processor: its checkpoint, its claim, and what an
 * operator set or asked for (a pause, a seek), as {@link CheckpointStore#checkpoints} lists them.
 *
 * @param processor the processor's name
 * @param segment which segment
 * @param position the last checkpoint saved; 0 when none was
 * @param owner the instance that holds the claim, or null when none does (a claim past {@code claimedUntil} is
 *     expired: any instance may take it)
 * @param claimedUntil until when the claim holds without renewal, on the store's clock; null when unclaimed
 * @param paused whether an operator paused the segment: its owner keeps the claim and reads nothing
 * @param requestedCheckpoint a seek an operator asked for and the owner has not done yet (0: a reset to the start), or
 *     null
 */
public record SegmentCheckpoint(
        String processor,
        Segment segment,
        long position,
        @Nullable String owner,
        @Nullable Instant claimedUntil,
        boolean paused,
        @Nullable Long requestedCheckpoint) {

    public SegmentCheckpoint {
        Objects.requireNonNull(processor, "processor");
        Objects.requireNonNull(segment, "segment");
        if (position < 0) {
            throw new IllegalArgumentException("position must not be negative: " + position);
        }
    }

    /** Whether {@code owner} holds a claim that has not expired at {@code now}. */
    public boolean claimedAt(Instant now) {
        return owner != null && claimedUntil != null && claimedUntil.isAfter(now);
    }
}
