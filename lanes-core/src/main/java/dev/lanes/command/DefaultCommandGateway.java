package dev.lanes.command;

import dev.lanes.eventsourcing.DuplicateRequestIdException;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.messaging.CommandMessage;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * Checks idempotency (in flight here, then the event store), registers the sender's wait, then sends. A command that
 * fails to send leaves nothing behind.
 */
public final class DefaultCommandGateway implements CommandGateway {
    private final CommandBus commandBus;
    private final EventStore eventStore;
    private final CommandResults results;

    public DefaultCommandGateway(CommandBus commandBus, EventStore eventStore, CommandResults results) {
        this.commandBus = Objects.requireNonNull(commandBus, "commandBus");
        this.eventStore = Objects.requireNonNull(eventStore, "eventStore");
        this.results = Objects.requireNonNull(results, "results");
    }

    @Override
    public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(waitStage, "waitStage");
        return eventStore
                .hasRequestId(command.aggregateId(), command.requestId())
                .flatMap(used -> used ? Mono.error(duplicate(command)) : track(command, waitStage));
    }

    private Mono<CommandResult> track(CommandMessage command, WaitStage waitStage) {
        Mono<CommandResult> outcome = results.track(command, waitStage);
        if (outcome == null) {
            return Mono.error(duplicate(command));
        }
        return commandBus
                .send(command)
                .doOnSuccess(sent -> results.sent(command))
                .onErrorResume(error -> {
                    results.failed(command, error);
                    return Mono.empty();
                })
                .then(outcome);
    }

    private static DuplicateRequestIdException duplicate(CommandMessage command) {
        return DuplicateRequestIdException.of(command.aggregateId(), command.requestId());
    }
}
