package dev.lanes.kafka;

import dev.lanes.api.AggregateId;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What the instance that handled a command tells the instance that sent it: processed (version and events; version 0
 * and no events when it changed nothing) or failed; or what the instance whose projection handled the command's events
 * tells the sender: {@code projection} handled them (then version, events and failure carry nothing).
 *
 * @param to the sending instance
 * @param from the handling instance
 * @param projection the projection that handled the command's events, or null for the command's own outcome
 * @param storedBy for a processed command whose request id was stored earlier (a resend), the command that stored it;
 *     else null
 */
record Reply(
        String to,
        String from,
        String commandId,
        String requestId,
        AggregateId aggregateId,
        int version,
        List<Object> events,
        @Nullable Failure failure,
        @Nullable String projection,
        @Nullable String storedBy) {

    /**
     * A failure, by the name and message of its exception type (the exception itself stays on its instance).
     *
     * @param rejected whether a business rule refused the command (a {@code CommandRejectedException} there)
     */
    record Failure(String type, String message, boolean recoverable, boolean rejected) {}

    /** The command's outcome: processed, or failed. */
    static Reply outcome(
            String to,
            String from,
            CommandMessage command,
            int version,
            List<Object> events,
            @Nullable Failure failure) {
        return outcome(to, from, command, version, events, failure, null);
    }

    /**
     * A resend's outcome: its request id stored {@code events} at {@code version} earlier, by command {@code storedBy}.
     */
    static Reply storedEarlier(
            String to, String from, CommandMessage command, String storedBy, int version, List<Object> events) {
        return outcome(to, from, command, version, events, null, storedBy);
    }

    private static Reply outcome(
            String to,
            String from,
            CommandMessage command,
            int version,
            List<Object> events,
            @Nullable Failure failure,
            @Nullable String storedBy) {
        return new Reply(
                to,
                from,
                command.messageId(),
                command.requestId(),
                command.aggregateId(),
                version,
                events,
                failure,
                null,
                storedBy);
    }

    /** {@code projection} on instance {@code from} handled the events of {@code stream}'s command. */
    static Reply projected(String to, String from, DomainEventStream stream, String projection) {
        return new Reply(
                to,
                from,
                stream.commandId(),
                stream.requestId(),
                stream.aggregateId(),
                0,
                List.of(),
                null,
                projection,
                null);
    }

    Reply {
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(commandId, "commandId");
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(aggregateId, "aggregateId");
        events = List.copyOf(events);
    }
}
