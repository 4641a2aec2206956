package dev.lanes.command;

import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;

/** Whether a stored stream answers a command: the same request id must come with the same command hash. */
final class StoredCommands {
    private StoredCommands() {}

    /**
     * @throws RequestIdReusedException naming the request id and both hashes when both carry {@link
     *     CommandMessage#HASH_HEADER} and they differ
     */
    static void requireSameCommand(CommandMessage command, DomainEventStream stored) {
        String storedHash = stored.headers().get(CommandMessage.HASH_HEADER);
        String sentHash = command.headers().get(CommandMessage.HASH_HEADER);
        if (storedHash != null && sentHash != null && !storedHash.equals(sentHash)) {
            throw RequestIdReusedException.of(command, storedHash, sentHash);
        }
    }
}
