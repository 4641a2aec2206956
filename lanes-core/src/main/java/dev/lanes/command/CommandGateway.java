package dev.lanes.command;

import dev.lanes.api.AggregateId;
import dev.lanes.messaging.CommandMessage;
import reactor.core.publisher.Mono;

/**
 * Where application code sends commands.
 *
 * <p>The returned {@code Mono} completes at the requested {@link WaitStage}, or errors with the command's failure
 * unchanged: a handler's exception with its type and message, {@code DuplicateRequestIdException} for a request id
 * already used on that aggregate, {@link CommandBusOverloadedException} when the bus is full, {@link
 * UnknownAggregateTypeException} when no dispatcher serves the aggregate's type, {@code
 * ExchangeRejectedException} when the aggregate's lane is full or the runtime is stopping.
 */
public interface CommandGateway {

    Mono<CommandResult> send(CommandMessage command, WaitStage waitStage);

    /** Sends {@code command} to {@code aggregateId} with a fresh request id. */
    default Mono<CommandResult> send(AggregateId aggregateId, Object command, WaitStage waitStage) {
        return send(CommandMessage.of(aggregateId, command), waitStage);
    }
}
