package dev.lanes.eventsourcing;

import dev.lanes.messaging.DomainEventStream;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a store holds for a request id on an aggregate ({@link EventStore#findRequest}): the stream its command stored,
 * or the refusal its command got. Exactly one of the two is present; a stored stream wins over a refusal.
 */
public final class RequestOutcome {
    private final @Nullable DomainEventStream stored;
    private final @Nullable CommandRefusal refusal;

    private RequestOutcome(@Nullable DomainEventStream stored, @Nullable CommandRefusal refusal) {
        this.stored = stored;
        this.refusal = refusal;
    }

    /** The request id stored {@code stream}. */
    public static RequestOutcome stored(DomainEventStream stream) {
        return new RequestOutcome(Objects.requireNonNull(stream, "stream"), null);
    }

    /** The request id's command was refused by its aggregate. */
    public static RequestOutcome refused(CommandRefusal refusal) {
        return new RequestOutcome(null, Objects.requireNonNull(refusal, "refusal"));
    }

    /** The stream the request id stored, or {@code null} when it was refused. */
    public @Nullable DomainEventStream stream() {
        return stored;
    }

    /** The refusal the request id's command got, or {@code null} when it stored a stream. */
    public @Nullable CommandRefusal refusal() {
        return refusal;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof RequestOutcome that
                && Objects.equals(stored, that.stored)
                && Objects.equals(refusal, that.refusal);
    }

    @Override
    public int hashCode() {
        return Objects.hash(stored, refusal);
    }

    @Override
    public String toString() {
        return stored != null ? "RequestOutcome[stored " + stored + "]" : "RequestOutcome[refused " + refusal + "]";
    }
}
