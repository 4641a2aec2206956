package dev.lanes.messaging;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Ids;
import dev.lanes.internal.Require;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A command on its way to one aggregate.
 *
 * @param messageId unique id of this message
 * @param aggregateId the aggregate that handles it
 * @param requestId the idempotency key: an aggregate appends at most one event stream per request id
 * @param command the user's command value
 * @param createdAt when it was created
 * @param headers free-form metadata, copied
 */
public record CommandMessage(
        String messageId,
        AggregateId aggregateId,
        String requestId,
        Object command,
        Instant createdAt,
        Map<String, String> headers) {

    /**
     * The header that names the message a command follows up (a saga's command names the event key that caused it).
     * See {@link #isFollowUp()}.
     */
    public static final String CAUSE_HEADER = "lanes.cause";

    /**
     * The header that names the request a message belongs to: the correlation id, the same on every command and event
     * that one request caused, across sagas, buses and stores. A caller may set it on send (to tie a command to its own
     * trace or request); without it, a command's correlation id is its own message id (see {@link #correlationId()}),
     * and a saga's command carries the correlation id of the events that caused it.
     */
    public static final String CORRELATION_HEADER = "lanes.correlation-id";

    /**
     * The header that carries a hash of the command as its sender serialized it (its type and payload): stored with
     * the command's events, so that a later message of the same request id whose hash differs is refused with a
     * {@code RequestIdReusedException} instead of being answered with the stored result of another command. Messages
     * without it (or answered from a stream stored without it) are not compared. The HTTP endpoint of the Spring Boot
     * starter sets it; any sender may.
     */
    public static final String HASH_HEADER = "lanes.command-hash";

    public CommandMessage {
        Require.notBlank(messageId, "messageId");
        Objects.requireNonNull(aggregateId, "aggregateId");
        Require.notBlank(requestId, "requestId");
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(createdAt, "createdAt");
        headers = Map.copyOf(headers);
    }

    /** A command with a fresh message id that is also its request id. */
    public static CommandMessage of(AggregateId aggregateId, Object command) {
        String id = Ids.randomUuid();
        return new CommandMessage(id, aggregateId, id, command, Instant.now(), Map.of());
    }

    /** A command whose request id (idempotency key) is chosen by the caller. */
    public static CommandMessage of(AggregateId aggregateId, Object command, String requestId) {
        return new CommandMessage(Ids.randomUuid(), aggregateId, requestId, command, Instant.now(), Map.of());
    }

    /**
     * Whether this command follows up work already admitted (it carries {@link #CAUSE_HEADER}). Buses never refuse a
     * follow-up for room nor hold it behind an intake gate: refusing it would strand the work that caused it, and the
     * work that causes follow-ups is itself bounded. Application code sends new commands, not follow-ups.
     */
    public boolean isFollowUp() {
        return headers.containsKey(CAUSE_HEADER);
    }

    /** The request this command belongs to: its {@link #CORRELATION_HEADER}, or its own message id if it has none. */
    public String correlationId() {
        String correlation = headers.get(CORRELATION_HEADER);
        return correlation != null ? correlation : messageId;
    }

    /**
     * The message that caused this command: for a saga's command, the key of the event that caused it ({@link
     * #CAUSE_HEADER}); {@code null} for a command sent by a caller.
     */
    public @Nullable String causationId() {
        return headers.get(CAUSE_HEADER);
    }

    public CommandMessage withHeader(String name, String value) {
        Map<String, String> copy = new java.util.HashMap<>(headers);
        copy.put(Require.notBlank(name, "name"), Objects.requireNonNull(value, "value"));
        return new CommandMessage(messageId, aggregateId, requestId, command, createdAt, copy);
    }

    @Override
    public String toString() {
        return command.getClass().getSimpleName() + "[" + aggregateId + ", request " + requestId + "]";
    }
}
