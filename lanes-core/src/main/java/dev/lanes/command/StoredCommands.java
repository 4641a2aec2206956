package dev.lanes.command;

import dev.lanes.eventsourcing.CommandRefusal;
import dev.lanes.eventsourcing.RequestOutcome;
import dev.lanes.internal.Internal;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Whether what a request id left in the store answers a command: the same request id must come with the same command
 * hash; a refusal answers with itself.
 */
@Internal
public final class StoredCommands {
    private StoredCommands() {}

    /**
     * @throws RequestIdReusedException naming the request id and both hashes when both carry {@link
     *     CommandMessage#HASH_HEADER} and they differ
     */
    static void requireSameCommand(CommandMessage command, DomainEventStream stored) {
        requireSameHash(command, stored.headers().get(CommandMessage.HASH_HEADER));
    }

    /**
     * The refusal that answers {@code command}: the stored one, unless the command is another one than the refused
     * (then the request id was reused).
     */
    public static CommandRejectedEarlierException rejectedEarlier(CommandMessage command, CommandRefusal refusal) {
        requireSameHash(command, refusal.commandHash());
        return new CommandRejectedEarlierException(refusal);
    }

    /** The stream {@code outcome} stored, after the checks; a refusal is thrown as {@link #rejectedEarlier}. */
    public static DomainEventStream storedOrThrow(CommandMessage command, RequestOutcome outcome) {
        DomainEventStream stored = outcome.stream();
        if (stored == null) {
            CommandRefusal refusal = Objects.requireNonNull(outcome.refusal());
            throw rejectedEarlier(command, refusal);
        }
        requireSameCommand(command, stored);
        return stored;
    }

    private static void requireSameHash(CommandMessage command, @Nullable String storedHash) {
        String sentHash = command.headers().get(CommandMessage.HASH_HEADER);
        if (storedHash != null && sentHash != null && !storedHash.equals(sentHash)) {
            throw RequestIdReusedException.of(command, storedHash, sentHash);
        }
    }
}
