package dev.lanes.command;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NonRecoverableException;
import dev.lanes.messaging.CommandMessage;
import java.util.Objects;

/**
 * A request id the aggregate already stored was sent again with another command: the stored stream's {@link
 * CommandMessage#HASH_HEADER} differs from the one the new message carries. Nothing was sent and nothing is stored for
 * it; the stored result stands. Retrying cannot help: send the new command with a request id of its own.
 */
public final class RequestIdReusedException extends NonRecoverableException {
    private static final long serialVersionUID = 1L;

    private final transient AggregateId aggregateId;
    private final String requestId;
    private final String storedHash;
    private final String sentHash;

    private RequestIdReusedException(AggregateId aggregateId, String requestId, String storedHash, String sentHash) {
        super("Request id '" + requestId + "' on " + aggregateId
                + " was stored for another command: stored command hash "
                + storedHash + ", this command's hash " + sentHash
                + "; the stored result stands: send a new command with a new request id");
        this.aggregateId = aggregateId;
        this.requestId = requestId;
        this.storedHash = storedHash;
        this.sentHash = sentHash;
    }

    /** {@code command} reuses a request id stored with {@code storedHash}. */
    public static RequestIdReusedException of(CommandMessage command, String storedHash, String sentHash) {
        return new RequestIdReusedException(
                command.aggregateId(),
                command.requestId(),
                Objects.requireNonNull(storedHash, "storedHash"),
                Objects.requireNonNull(sentHash, "sentHash"));
    }

    public AggregateId aggregateId() {
        return aggregateId;
    }

    public String requestId() {
        return requestId;
    }

    /** The hash the stored stream carries. */
    public String storedHash() {
        return storedHash;
    }

    /** The hash the refused message carried. */
    public String sentHash() {
        return sentHash;
    }
}
