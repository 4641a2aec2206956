package dev.lanes.processing.saga;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Require;
import java.util.Objects;

/**
 * A command a saga recorded with {@link SagaContext#send}: sent once the saga's handling succeeded, outside its lane;
 * its outcome comes back to the saga as a {@link SagaReply}.
 *
 * @param target the aggregate that handles it
 * @param command the user's command value
 * @param requestId derived from what triggered the saga, so a redelivery or a retry never applies it twice
 */
public record SagaCommand(AggregateId target, Object command, String requestId) {

    public SagaCommand {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(command, "command");
        Require.notBlank(requestId, "requestId");
    }
}
