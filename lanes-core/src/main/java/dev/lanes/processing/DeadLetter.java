package dev.lanes.processing;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Require;
import dev.lanes.messaging.DomainEventStream;
import java.time.Instant;
import java.util.Objects;

/**
 * One event stream a processor could not handle, in its aggregate's parked sequence.
 *
 * @param processor the processor that parked it
 * @param index its place in the sequence, assigned by the {@link DeadLetterQueue}: later letters have higher indexes
 * @param stream the stream itself, unchanged, so it can be delivered again
 * @param reason why it is parked: the last error ({@code type: message}), or that it waits behind the sequence's head
 * @param attempts how many times the processor ran it (0 for a stream parked behind the head without running)
 * @param parkedAt when it was parked, or last failed again
 */
public record DeadLetter(
        String processor, long index, DomainEventStream stream, String reason, int attempts, Instant parkedAt) {

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

    /** The reason text stored for an error: its type and message. */
    public static String reasonOf(Throwable error) {
        return error.toString();
    }

    public AggregateId aggregateId() {
        return stream.aggregateId();
    }

    /** This letter after one more failed delivery: the new reason, one more attempt, the time of the failure. */
    public DeadLetter failedAgain(Throwable error, Instant at) {
        return new DeadLetter(processor, index, stream, reasonOf(error), attempts + 1, at);
    }

    @Override
    public String toString() {
        return "DeadLetter[" + processor + " #" + index + " " + stream + ", " + attempts + " attempt(s): " + reason
                + "]";
    }
}
