package dev.lanes.command;

import dev.lanes.internal.Internal;
import dev.lanes.messaging.CommandMessage;
import java.util.List;

/**
 * What the command lane ({@code dev.lanes.command.lane}) reports to the {@link CommandResults} of its instance: a
 * command taken into its lane, processed or failed. The only way to answer a wait besides the results table itself,
 * so that no method of the API does (threading and ordering as the results table's own methods).
 */
@Internal
public final class LaneReports {
    private LaneReports() {}

    /** The lane took {@code command}; what it reports through the returned progress shapes the answers. */
    public static CommandProgress handling(CommandResults results, CommandMessage command) {
        return results.handling(command);
    }

    /** The command's events were appended and published ({@code version} 0 and no events: it changed nothing). */
    public static void processed(CommandResults results, CommandMessage command, int version, List<Object> events) {
        results.processed(command, version, events);
    }

    /**
     * The command's request id was stored earlier, by command {@code storedBy}: its senders are answered with those
     * events at {@code version}.
     */
    public static void storedEarlier(
            CommandResults results, CommandMessage command, String storedBy, int version, List<Object> events) {
        results.storedEarlier(command, storedBy, version, events);
    }

    /** The command failed in its lane: its waits are answered with {@code error}. */
    public static void failed(CommandResults results, CommandMessage command, Throwable error) {
        results.failed(command, error);
    }
}
