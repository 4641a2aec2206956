package dev.lanes.processing.saga;

import dev.lanes.api.AggregateId;
import dev.lanes.eventsourcing.UndecodedPayload;
import dev.lanes.internal.Internal;
import dev.lanes.internal.Require;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.messaging.EventContext;
import dev.lanes.processing.deadletter.DeadLetter;
import java.util.Objects;

/**
 * What a {@link DeadLetter} holds for a saga reply whose handling failed for good: enough to reproduce the reply. The
 * letter's {@link DeadLetter#stream() stream} is the cause stream (the one whose event made the saga send the command);
 * this names the event within it and the command that was sent. A retry sends the same command again with the same
 * request id, which the command side answers from its store if it stored the command (or runs it if it never did), and
 * hands the outcome to the saga's reply functions as a {@link SagaReply}.
 *
 * @param causeSequence the sequence of the cause event in the cause stream: a reply function's {@link
 *     SagaContext#event()}
 * @param target the aggregate the command was sent to
 * @param command the command value; a durable queue that cannot decode it keeps it undecoded ({@link
 *     dev.lanes.eventsourcing.UndecodedPayload}), and its retry fails until a codec that reads it runs
 * @param requestId the command's request id
 */
public record ParkedReply(int causeSequence, AggregateId target, Object command, String requestId) {

    public ParkedReply {
        Require.positive(causeSequence, "causeSequence");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(command, "command");
        Require.notBlank(requestId, "requestId");
    }

    /** What a letter keeps of {@code reply}. */
    @Internal
    public static ParkedReply of(SagaReply<?> reply) {
        return new ParkedReply(reply.cause().event().sequence(), reply.target(), reply.command(), reply.requestId());
    }

    /** The cause event within {@code cause}, the letter's stream. */
    @Internal
    public EventContext cause(DomainEventStream cause) {
        for (DomainEvent event : cause.events()) {
            if (event.sequence() == causeSequence) {
                return new EventContext(cause, event);
            }
        }
        throw new IllegalStateException("The parked reply to request " + requestId + " names event " + causeSequence
                + " of " + cause + ", which holds no such event");
    }

    /** The command sent again, with its request id. */
    @Internal
    public SagaCommand sagaCommand() {
        return new SagaCommand(target, command, requestId);
    }

    @Override
    public String toString() {
        String type = command instanceof UndecodedPayload undecoded
                ? undecoded.encoded().type()
                : command.getClass().getSimpleName();
        return "reply to " + type + " for " + target + " (request " + requestId + ", cause event " + causeSequence
                + ")";
    }
}
