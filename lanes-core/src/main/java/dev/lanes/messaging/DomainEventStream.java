package dev.lanes.messaging;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Ids;
import dev.lanes.internal.Require;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The events one command produced on one aggregate, appended atomically as one version.
 *
 * @param id unique id of this stream
 * @param aggregateId the aggregate it belongs to
 * @param version the aggregate's version after this stream: the expected next version when appended (1 creates it)
 * @param requestId the request id of the command that produced it (idempotency key)
 * @param commandId message id of that command
 * @param events at least one event, in order
 * @param createdAt when it was produced
 * @param headers free-form metadata, copied
 */
public record DomainEventStream(
        String id,
        AggregateId aggregateId,
        int version,
        String requestId,
        String commandId,
        List<DomainEvent> events,
        Instant createdAt,
        Map<String, String> headers) {

    public DomainEventStream {
        Require.notBlank(id, "id");
        Objects.requireNonNull(aggregateId, "aggregateId");
        if (version < 1) {
            throw new IllegalArgumentException("version must be positive: " + version + " (" + aggregateId + ")");
        }
        Require.notBlank(requestId, "requestId");
        Require.notBlank(commandId, "commandId");
        events = List.copyOf(events);
        if (events.isEmpty()) {
            throw new IllegalArgumentException(
                    "an event stream needs at least one event: " + aggregateId + " v" + version);
        }
        Objects.requireNonNull(createdAt, "createdAt");
        headers = Map.copyOf(headers);
    }

    /** The stream a command produced: its payloads numbered from 1. */
    public static DomainEventStream of(CommandMessage command, int version, List<?> payloads) {
        DomainEvent[] events = new DomainEvent[payloads.size()];
        for (int i = 0; i < events.length; i++) {
            events[i] = new DomainEvent(i + 1, payloads.get(i));
        }
        return new DomainEventStream(
                Ids.randomUuid(),
                command.aggregateId(),
                version,
                command.requestId(),
                command.messageId(),
                List.of(events), // immutable already: the constructor's copy makes none
                Instant.now().truncatedTo(ChronoUnit.MICROS), // what SQL timestamps keep: a round trip is equal
                command.headers());
    }

    /**
     * The request this stream belongs to: the {@link CommandMessage#CORRELATION_HEADER} of the command that produced it,
     * or that command's message id if it had none. The same on the stored stream, on the bus and in a dead letter: it
     * is read from the headers, which all of them keep.
     */
    public String correlationId() {
        String correlation = headers.get(CommandMessage.CORRELATION_HEADER);
        return correlation != null ? correlation : commandId;
    }

    /** The message that caused this stream: the command that produced it ({@link #commandId()}). */
    public String causationId() {
        return commandId;
    }

    public List<Object> payloads() {
        if (events.size() == 1) {
            return List.of(events.get(0).payload());
        }
        Object[] payloads = new Object[events.size()];
        for (int i = 0; i < payloads.length; i++) {
            payloads[i] = events.get(i).payload();
        }
        return List.of(payloads);
    }

    @Override
    public String toString() {
        return "DomainEventStream[" + aggregateId + " v" + version + ", " + events.size() + " event(s), request "
                + requestId + "]";
    }
}
