package dev.lanes.command;

import dev.lanes.eventsourcing.CommandRefusal;
import dev.lanes.modeling.CommandRejectedException;
import java.util.Objects;

/**
 * The answer to a request id whose command its aggregate refused before: the stored {@link CommandRefusal}, given
 * again, whatever the aggregate's state is now. Nothing was decided for this send. A sender that means a new attempt
 * sends it with a new request id.
 */
public final class CommandRejectedEarlierException extends CommandRejectedException {
    private static final long serialVersionUID = 1L;

    private final transient CommandRefusal refusal;

    CommandRejectedEarlierException(CommandRefusal refusal) {
        super("Request id '" + refusal.requestId() + "' on " + refusal.aggregateId() + " was rejected at "
                + refusal.refusedAt() + " (" + refusal.errorType() + "): " + refusal.reason()
                + "; the rejection stands for this request id: send a new attempt with a new request id");
        this.refusal = Objects.requireNonNull(refusal, "refusal");
    }

    /** The refusal as the store remembers it. */
    public CommandRefusal refusal() {
        return refusal;
    }
}
