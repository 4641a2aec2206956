package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import dev.lanes.messaging.DomainEventStream;
import java.util.Objects;

/**
 * A stored stream with its place in the store's global order ({@link EventStore#readAll}).
 *
 * <p>Positions belong to streams, not to single events: a stream is what one append stores atomically, so it is the
 * unit that becomes visible at once. An event is globally identified by its stream's position and its {@link
 * dev.lanes.messaging.DomainEvent#sequence() sequence} inside the stream. Positions start at 1 and increase with
 * every append; they may have gaps (an append that failed or was rolled back leaves its position unused), so a reader
 * must never expect {@code position + 1} to exist.
 *
 * @param position the stream's global position, at least 1
 * @param stream the stored stream
 */
public record PositionedStream(long position, DomainEventStream stream) {

    public PositionedStream {
        if (position < 1) {
            throw new IllegalArgumentException("position must be positive: " + position);
        }
        Objects.requireNonNull(stream, "stream");
    }

    public AggregateId aggregateId() {
        return stream.aggregateId();
    }

    public int version() {
        return stream.version();
    }

    @Override
    public String toString() {
        return "PositionedStream[" + position + ": " + stream.aggregateId() + " v" + stream.version() + "]";
    }
}
