package dev.lanes.messaging;

import dev.lanes.api.AggregateId;
import java.util.Objects;

/**
 * Where an event comes from: its stream (aggregate, version, request and command ids, headers) and its place in it.
 */
public record EventContext(DomainEventStream stream, DomainEvent event) {

    public EventContext {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(event, "event");
    }

    public AggregateId aggregateId() {
        return stream.aggregateId();
    }

    /** The aggregate's version after the stream that holds this event. */
    public int version() {
        return stream.version();
    }

    /** A key unique to this event: stream id and sequence. Stable across redeliveries. */
    public String eventKey() {
        return stream.id() + "/" + event.sequence();
    }
}
