package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.Objects;

/**
 * One of the {@code count} parts a tracking processor's stream is split into, so that several instances read it at
 * once (each segment has its own checkpoint and claim in the {@link CheckpointStore}).
 *
 * <p><b>The hash.</b> An aggregate belongs to segment {@code hash(id) & (count - 1)}, where {@code hash} is the first 4
 * bytes, big-endian, of the MD5 digest of the UTF-8 bytes of the aggregate's {@link AggregateId#id() id} (not of its
 * type or tenant). It never changes for an aggregate, so every stream of an aggregate falls in one segment and its
 * order is kept; PostgreSQL computes the same value in SQL ({@code ('x' || substr(md5(aggregate_id), 1, 8))::bit(32)
 * ::int}, stored with every stream since schema version 10). Because the segment is the low bits of the hash, segment
 * {@code i} of {@code n} is exactly segments {@code i} and {@code i + n} of {@code 2n}.
 *
 * @param index which segment, from 0 to {@code count - 1}
 * @param count how many segments there are: a power of two from 1 to {@link #MAX_COUNT}
 */
public record Segment(int index, int count) {
    /** The most segments a processor may have. */
    public static final int MAX_COUNT = 1024;

    /** The whole stream: one segment, as a processor without segments reads. */
    public static final Segment ALL = new Segment(0, 1);

    public Segment {
        requireCount(count);
        if (index < 0 || index >= count) {
            throw new IllegalArgumentException("segment index must be in [0, " + count + "): " + index);
        }
    }

    /**
     * Checks a segment count: a power of two from 1 to {@link #MAX_COUNT}.
     *
     * @throws IllegalArgumentException naming the value otherwise
     */
    public static int requireCount(int count) {
        if (count < 1 || count > MAX_COUNT || Integer.bitCount(count) != 1) {
            throw new IllegalArgumentException(
                    "segment count must be a power of two from 1 to " + MAX_COUNT + ": " + count);
        }
        return count;
    }

    /**
     * The count the given segments share (of one processor's split).
     *
     * @throws IllegalArgumentException naming the segments when they are empty or of different counts
     */
    public static int commonCount(Collection<Segment> segments) {
        int count = segments.isEmpty() ? 0 : segments.iterator().next().count();
        if (count == 0 || segments.stream().anyMatch(segment -> segment.count() != count)) {
            throw new IllegalArgumentException("segments must be one or more of one count: " + segments);
        }
        return count;
    }

    /** The segment of {@code count} that {@code aggregateId} belongs to. */
    public static Segment of(AggregateId aggregateId, int count) {
        requireCount(count);
        return new Segment(hash(aggregateId) & (count - 1), count);
    }

    /** Whether the streams of {@code aggregateId} belong to this segment. */
    public boolean contains(AggregateId aggregateId) {
        return count == 1 || (hash(aggregateId) & (count - 1)) == index;
    }

    /** The stable hash of the class documentation: the first 4 bytes of MD5 of the UTF-8 id, big-endian. */
    public static int hash(AggregateId aggregateId) {
        byte[] digest = md5().digest(
                        Objects.requireNonNull(aggregateId, "aggregateId").id().getBytes(StandardCharsets.UTF_8));
        return (digest[0] & 0xff) << 24 | (digest[1] & 0xff) << 16 | (digest[2] & 0xff) << 8 | (digest[3] & 0xff);
    }

    private static MessageDigest md5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is not available", e);
        }
    }

    @Override
    public String toString() {
        return "segment " + index + "/" + count;
    }
}
