package dev.lanes.command;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.messaging.CommandMessage;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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

    private final ConcurrentHashMap<MaterializedNamedAggregate, Set<String>> projectionsByType =
            new ConcurrentHashMap<>();

    /** One command in flight; for {@code PROJECTED} it also gathers the projections that handled its events. */
    private static final class Tracked {
        final CommandMessage command;
        final WaitStage stage;
        final Sinks.One<CommandResult> outcome = Sinks.one();
        final Set<String> projectedBy = new HashSet<>();

        @Nullable
        CommandResult processed;

        Tracked(CommandMessage command, WaitStage stage) {
            this.command = command;
            this.stage = stage;
        }
    }

    /**
     * Declares the projections that handle the events of {@code namedAggregate}: a sender waiting for {@code
     * PROJECTED} waits for all of them. Called by the event side when it is built.
     */
    public void expectProjections(NamedAggregate namedAggregate, Set<String> projections) {
        projectionsByType.merge(namedAggregate.materialize(), Set.copyOf(projections), (a, b) -> {
            Set<String> union = new HashSet<>(a);
            union.addAll(b);
            return Set.copyOf(union);
        });
    }

    /** A projection handled the events of command {@code commandId} (it may come before {@link #processed}). */
    public void projected(String commandId, String projection) {
        Tracked tracked = byCommandId.get(commandId);
        if (tracked != null && tracked.stage == WaitStage.PROJECTED) {
            synchronized (tracked) {
                tracked.projectedBy.add(projection);
            }
            completeIfProjected(tracked);
        }
    }

    /** A projection gave up on the events of command {@code commandId}: its {@code PROJECTED} sender gets the error. */
    public void projectionFailed(String commandId, String projection, Throwable error) {
        Tracked tracked = byCommandId.remove(commandId);
        if (tracked != null) {
            commandIdByRequest.remove(requestKey(tracked.command), commandId);
            tracked.outcome.tryEmitError(new IllegalStateException(
                    "Projection " + projection + " could not handle the events of " + tracked.command, error));
        }
    }

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
        Tracked tracked = new Tracked(command, stage);
        byCommandId.put(command.messageId(), tracked);
        return tracked.outcome.asMono();
    }

    /** The bus accepted the command: a sender waiting for {@code SENT} is done. */
    void sent(CommandMessage command) {
        Tracked tracked = byCommandId.get(command.messageId());
        if (tracked != null && tracked.stage == WaitStage.SENT) {
            tracked.outcome.tryEmitValue(result(command, WaitStage.SENT, 0, List.of()));
        }
    }

    /** The command's events were appended and published ({@code version} 0 and no events: it changed nothing). */
    public void processed(CommandMessage command, int version, List<Object> events) {
        Tracked tracked = byCommandId.get(command.messageId());
        if (tracked == null) {
            return;
        }
        commandIdByRequest.remove(requestKey(command), command.messageId());
        if (tracked.stage != WaitStage.PROJECTED
                || events.isEmpty()
                || expectedProjections(command).isEmpty()) {
            byCommandId.remove(command.messageId());
            tracked.outcome.tryEmitValue(result(command, WaitStage.PROCESSED, version, events));
            return;
        }
        synchronized (tracked) {
            tracked.processed = result(command, WaitStage.PROJECTED, version, events);
        }
        completeIfProjected(tracked);
    }

    private void completeIfProjected(Tracked tracked) {
        CommandResult done;
        synchronized (tracked) {
            if (tracked.processed == null || !tracked.projectedBy.containsAll(expectedProjections(tracked.command))) {
                return;
            }
            done = tracked.processed;
        }
        if (byCommandId.remove(tracked.command.messageId(), tracked)) {
            tracked.outcome.tryEmitValue(done);
        }
    }

    private Set<String> expectedProjections(CommandMessage command) {
        return projectionsByType.getOrDefault(command.aggregateId().materialize(), Set.of());
    }

    /** The command failed, was rejected or parked: its sender gets {@code error} unchanged. */
    public void failed(CommandMessage command, Throwable error) {
        Tracked tracked = end(command);
        if (tracked != null) {
            tracked.outcome.tryEmitError(error);
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
