package dev.lanes.processing;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Require;
import dev.lanes.messaging.DomainEventStream;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One event stream a processor could not handle, in its aggregate's parked sequence; or, for a saga, one reply to a
 * command it sent that its reply functions could not handle ({@link #reply()} is then set, and {@link #stream()} is the
 * stream whose event caused the command: the reply's place is in that aggregate's sequence).
 *
 * @param processor the processor that parked it
 * @param index its place in the sequence, assigned by the {@link DeadLetterQueue}: later letters have higher indexes
 * @param stream the stream itself, unchanged, so it can be delivered again
 * @param reason why it is parked: the last error ({@code type: message}), or that it waits behind the sequence's head
 * @param attempts how many times the processor ran it (0 for a stream parked behind the head without running)
 * @param parkedAt when it was parked, or last failed again
 * @param reply for a saga reply, what reproduces it; {@code null} for a stream
 */
public record DeadLetter(
        String processor,
        long index,
        DomainEventStream stream,
        String reason,
        int attempts,
        Instant parkedAt,
        @Nullable ParkedReply reply) {

    public DeadLetter {
        Require.notBlank(processor, "processor");
        if (index < 1) {
            throw new IllegalArgumentException(
                    "index must be positive: " + index + " (" + processor + ", " + stream + ")");
        }
        Objects.requireNonNull(stream, "stream");
        Require.notBlank(reason, "reason");
        Require.notNegative(attempts, "attempts");
        Objects.requireNonNull(parkedAt, "parkedAt");
    }

    /** A letter for a stream. */
    public DeadLetter(
            String processor, long index, DomainEventStream stream, String reason, int attempts, Instant parkedAt) {
        this(processor, index, stream, reason, attempts, parkedAt, null);
    }

    /** Whether this letter is a saga reply rather than a stream. */
    public boolean isReply() {
        return reply != null;
    }

    /** The reason text stored for an error: its type and message. */
    public static String reasonOf(Throwable error) {
        return error.toString();
    }

    public AggregateId aggregateId() {
        return stream.aggregateId();
    }

    /** This letter after one more failed delivery: the new reason, one more attempt, the time of the failure. */
    public DeadLetter failedAgain(Throwable error, Instant at) {
        return new DeadLetter(processor, index, stream, reasonOf(error), attempts + 1, at, reply);
    }

    @Override
    public String toString() {
        return "DeadLetter[" + processor + " #" + index + " " + (reply == null ? "" : reply + " caused by ") + stream
                + ", " + attempts + " attempt(s): " + reason + "]";
    }
}
