package dev.lanes.processing.deadletter;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Require;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.saga.ParkedReply;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One event stream a processor could not handle, in its aggregate's parked sequence; or, for a saga, one reply to a
 * command it sent that its reply functions could not handle ({@link #reply()} is then set, and {@link #stream()} is the
 * stream whose event caused the command: the reply's place is in that aggregate's sequence); or, for the command side,
 * one command whose retries ran out ({@link #command()} is then set and {@link #stream()} is {@code null}: the letter is
 * in the sequence of the aggregate the command was sent to, under the processor name {@code commands:<aggregate
 * type>}, see {@link CommandDeadLetters}).
 *
 * @param processor the processor that parked it
 * @param index its place in the sequence, assigned by the {@link DeadLetterQueue}: later letters have higher indexes
 * @param stream the stream itself, unchanged, so it can be delivered again; {@code null} for a command
 * @param reason why it is parked: the last error ({@code type: message}), or that it waits behind the sequence's head
 * @param attempts how many times the processor ran it (0 for a stream parked behind the head without running)
 * @param parkedAt when it was parked, or last failed again
 * @param reply for a saga reply, what reproduces it; {@code null} for a stream
 * @param command for the command side, the command as it was sent (its request id included), so that it can be sent
 *     again; {@code null} for a stream or a reply
 */
public record DeadLetter(
        String processor,
        long index,
        @Nullable DomainEventStream stream,
        String reason,
        int attempts,
        Instant parkedAt,
        @Nullable ParkedReply reply,
        @Nullable CommandMessage command) {

    public DeadLetter {
        Require.notBlank(processor, "processor");
        if (index < 1) {
            throw new IllegalArgumentException("index must be positive: " + index + " (" + processor + ", "
                    + (stream != null ? stream : command) + ")");
        }
        if ((stream == null) == (command == null)) {
            throw new IllegalArgumentException("a dead letter of " + processor + " holds a stream or a command, not "
                    + (stream == null ? "neither" : "both: " + stream + ", " + command));
        }
        if (reply != null && stream == null) {
            throw new IllegalArgumentException(
                    "a saga reply's letter needs its cause stream (" + processor + ", " + reply + ")");
        }
        Require.notBlank(reason, "reason");
        Require.notNegative(attempts, "attempts");
        Objects.requireNonNull(parkedAt, "parkedAt");
    }

    /** A letter for a stream. */
    public DeadLetter(
            String processor, long index, DomainEventStream stream, String reason, int attempts, Instant parkedAt) {
        this(processor, index, stream, reason, attempts, parkedAt, null, null);
    }

    /** A letter for a saga reply, caused by an event of {@code stream}. */
    public DeadLetter(
            String processor,
            long index,
            DomainEventStream stream,
            String reason,
            int attempts,
            Instant parkedAt,
            @Nullable ParkedReply reply) {
        this(processor, index, stream, reason, attempts, parkedAt, reply, null);
    }

    /** A letter for a command whose retries ran out. */
    public static DeadLetter ofCommand(
            String processor, long index, CommandMessage command, String reason, int attempts, Instant parkedAt) {
        return new DeadLetter(
                processor, index, null, reason, attempts, parkedAt, null, Objects.requireNonNull(command, "command"));
    }

    /** Whether this letter is a saga reply rather than a stream. */
    public boolean isReply() {
        return reply != null;
    }

    /** Whether this letter is a command rather than a stream. */
    public boolean isCommand() {
        return command != null;
    }

    /**
     * The letter's stream (the cause stream, for a reply).
     *
     * @throws IllegalStateException naming the letter if it is a command's
     */
    public DomainEventStream requireStream() {
        DomainEventStream held = stream;
        if (held == null) {
            throw new IllegalStateException(this + " holds a command, not an event stream");
        }
        return held;
    }

    /** The reason text stored for an error: its type and message. */
    public static String reasonOf(Throwable error) {
        return error.toString();
    }

    /** The aggregate whose sequence holds the letter: its stream's, or its command's target. */
    public AggregateId aggregateId() {
        DomainEventStream held = stream;
        return held != null
                ? held.aggregateId()
                : Objects.requireNonNull(command).aggregateId();
    }

    /** This letter after one more failed delivery: the new reason, one more attempt, the time of the failure. */
    public DeadLetter failedAgain(Throwable error, Instant at) {
        return new DeadLetter(processor, index, stream, reasonOf(error), attempts + 1, at, reply, command);
    }

    @Override
    public String toString() {
        String held = command != null ? command.toString() : (reply == null ? "" : reply + " caused by ") + stream;
        return "DeadLetter[" + processor + " #" + index + " " + held + ", " + attempts + " attempt(s): " + reason + "]";
    }
}
