package dev.lanes.command;

import dev.lanes.api.AggregateId;
import dev.lanes.messaging.CommandMessage;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * Where application code sends commands.
 *
 * <p>The returned {@code Mono} completes at the requested {@link WaitStage}, or errors, and always ends:
 *
 * <ul>
 *   <li>with the command's failure unchanged: a handler's exception with its type and message, {@link
 *       CommandBusOverloadedException} when the bus is full, {@link UnknownAggregateTypeException} when no dispatcher
 *       serves the aggregate's type, {@code ExchangeRejectedException} ({@code LANE_FULL}) when the aggregate's lane is
 *       full; none of these stored anything;
 *   <li>with a {@link StageNotReachedException} when a stop, the timeout or a failed projection ended the wait first; it
 *       says whether the command's events are stored.
 * </ul>
 *
 * <p><b>Idempotency.</b> An aggregate stores at most one event stream per request id. Sending a request id that the
 * aggregate already stored completes at once with the stored result (stage {@code PROCESSED}, its version and events),
 * whatever stage was asked for. Sending the same {@code CommandMessage} (same message id) again while a send of it from
 * this gateway's instance is in flight joins that send: the command is dispatched and handled once, and each sender is
 * answered at its own stage and within its own timeout, with the same result or failure. Sending another message with
 * a request id in flight waits for that send to end, then answers as above from the store (the stored result names
 * the message that stored it), or sends the message if nothing was stored. So after any doubtful answer, send the
 * command again with the <em>same</em> request id.
 */
public interface CommandGateway {

    /** Sends and waits at most the default timeout of the gateway's {@link CommandResults}. */
    Mono<CommandResult> send(CommandMessage command, WaitStage waitStage);

    /**
     * Sends and waits at most {@code timeout}; past it the wait ends with a {@link StageNotReachedException} ({@code
     * TIMED_OUT}).
     *
     * @throws IllegalArgumentException naming the value if {@code timeout} is not positive
     */
    Mono<CommandResult> send(CommandMessage command, WaitStage waitStage, Duration timeout);

    /** Sends {@code command} to {@code aggregateId} with a fresh request id. */
    default Mono<CommandResult> send(AggregateId aggregateId, Object command, WaitStage waitStage) {
        return send(CommandMessage.of(aggregateId, command), waitStage);
    }
}
