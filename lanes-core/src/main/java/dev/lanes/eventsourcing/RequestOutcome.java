package dev.lanes.eventsourcing;

import dev.lanes.messaging.DomainEventStream;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a store holds for a request id on an aggregate ({@link EventStore#findRequest}): the stream its command stored,
 * or the refusal its command got. Exactly one of the two is present; a stored stream wins over a refusal.
 *
 * @param stream the stream the request id stored, or {@code null} when it was refused
 * @param refusal the refusal the request id's command got, or {@code null} when it stored a stream
 */
public record RequestOutcome(
        @Nullable DomainEventStream stream, @Nullable CommandRefusal refusal) {

    /** @throws IllegalArgumentException unless exactly one of the two is present */
    public RequestOutcome {
        if ((stream == null) == (refusal == null)) {
            throw new IllegalArgumentException(
                    "A request outcome is a stored stream or a refusal, exactly one: " + stream + ", " + refusal);
        }
    }

    /** The request id stored {@code stream}. */
    public static RequestOutcome stored(DomainEventStream stream) {
        return new RequestOutcome(Objects.requireNonNull(stream, "stream"), null);
    }

    /** The request id's command was refused by its aggregate. */
    public static RequestOutcome refused(CommandRefusal refusal) {
        return new RequestOutcome(null, Objects.requireNonNull(refusal, "refusal"));
    }
}
