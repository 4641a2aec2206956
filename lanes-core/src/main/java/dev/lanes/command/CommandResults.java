package dev.lanes.command;

import dev.lanes.messaging.CommandMessage;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Where the senders of commands on this instance wait for their outcome, and where the dispatcher reports it.
 *
 * <p>It also knows which requests are in flight, so a second command with the same request id for the same aggregate
 * is refused before it is sent. Memory is bounded by the commands in flight: an entry ends when its command was
 * processed, failed or was rejected.
 */
public final class CommandResults {
    private final ConcurrentHashMap<String, Tracked> byCommandId = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, String> commandIdByRequest = new ConcurrentHashMap<>();

    private record Tracked(CommandMessage command, WaitStage stage, Sinks.One<CommandResult> outcome) {}

    /**
     * Starts tracking a command that is about to be sent.
     *
     * @return its outcome at {@code stage}, or {@code null} if a command with the same request id for the same
     *     aggregate is already in flight
     */
    @Nullable
    Mono<CommandResult> track(CommandMessage command, WaitStage stage) {
        String requestKey = requestKey(command);
        if (commandIdByRequest.putIfAbsent(requestKey, command.messageId()) != null) {
            return null;
        }
        Tracked tracked = new Tracked(command, stage, Sinks.one());
        byCommandId.put(command.messageId(), tracked);
        return tracked.outcome().asMono();
    }

    /** The bus accepted the command: a sender waiting for {@code SENT} is done. */
    void sent(CommandMessage command) {
        Tracked tracked = byCommandId.get(command.messageId());
        if (tracked != null && tracked.stage() == WaitStage.SENT) {
            tracked.outcome().tryEmitValue(result(command, WaitStage.SENT, 0, List.of()));
        }
    }

    /** The command's events were appended and published ({@code version} 0 and no events: it changed nothing). */
    public void processed(CommandMessage command, int version, List<Object> events) {
        Tracked tracked = end(command);
        if (tracked != null) {
            tracked.outcome().tryEmitValue(result(command, WaitStage.PROCESSED, version, events));
        }
    }

    /** The command failed, was rejected or parked: its sender gets {@code error} unchanged. */
    public void failed(CommandMessage command, Throwable error) {
        Tracked tracked = end(command);
        if (tracked != null) {
            tracked.outcome().tryEmitError(error);
        }
    }

    /** Commands sent from here whose outcome is not known yet. */
    public int inFlight() {
        return byCommandId.size();
    }

    private @Nullable Tracked end(CommandMessage command) {
        Tracked tracked = byCommandId.remove(command.messageId());
        if (tracked != null) {
            commandIdByRequest.remove(requestKey(command), command.messageId());
        }
        return tracked;
    }

    private static String requestKey(CommandMessage command) {
        return command.aggregateId() + "|" + command.requestId();
    }

    private static CommandResult result(CommandMessage command, WaitStage stage, int version, List<Object> events) {
        return new CommandResult(
                command.messageId(), command.requestId(), command.aggregateId(), stage, version, events);
    }
}
