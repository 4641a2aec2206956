package dev.lanes.processing.saga;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandResult;
import dev.lanes.messaging.EventContext;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of a command a saga sent, delivered to the saga as a message in the lane of the aggregate whose event
 * caused the command (so it is ordered with that aggregate's events for this saga).
 *
 * @param command the command value that was sent
 * @param target the aggregate it was sent to
 * @param requestId its request id
 * @param cause the event whose handling sent it; a reply function's {@link SagaContext#event()} is this event
 * @param result its result when it succeeded, else {@code null}
 * @param error why it failed (after the saga's retries of transient failures), else {@code null}
 * @param <C> the command type
 */
public record SagaReply<C>(
        C command,
        AggregateId target,
        String requestId,
        EventContext cause,
        @Nullable CommandResult result,
        @Nullable Throwable error) {

    public SagaReply {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(cause, "cause");
        if ((result == null) == (error == null)) {
            throw new IllegalArgumentException(
                    "a saga reply has a result or an error, not both or neither: " + requestId);
        }
    }

    public boolean succeeded() {
        return error == null;
    }

    @Override
    public String toString() {
        return "SagaReply[" + command.getClass().getSimpleName() + " to " + target + ", request " + requestId + ", "
                + (error == null ? "succeeded" : "failed: " + error) + "]";
    }
}
