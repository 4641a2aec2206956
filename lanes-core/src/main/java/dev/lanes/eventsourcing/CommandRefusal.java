package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Require;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A command its aggregate refused by a business rule ({@code CommandRejectedException}), remembered under its request
 * id: a resend of that request id is answered with this refusal, never decided again, so a key that was refused cannot
 * later succeed because the aggregate's state moved on. Only a decision is remembered: a command refused before its
 * handler ran (an overloaded lane, a timeout, invalid input) keeps its request id free.
 *
 * @param aggregateId the aggregate that refused the command
 * @param requestId the command's request id
 * @param commandId the message id of the refused command
 * @param errorType the class name of the exception its handler threw
 * @param reason the exception's message
 * @param commandHash the command's {@code CommandMessage#HASH_HEADER}, when it carried one: a resend with another hash
 *     is refused as a reused request id
 * @param refusedAt when the handler refused it
 */
public record CommandRefusal(
        AggregateId aggregateId,
        String requestId,
        String commandId,
        String errorType,
        String reason,
        @Nullable String commandHash,
        Instant refusedAt) {

    public CommandRefusal {
        Objects.requireNonNull(aggregateId, "aggregateId");
        Require.notBlank(requestId, "requestId");
        Require.notBlank(commandId, "commandId");
        Require.notBlank(errorType, "errorType");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(refusedAt, "refusedAt");
    }
}
