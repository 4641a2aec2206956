package dev.lanes.command;

import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.messaging.CommandMessage;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Carries commands to the one dispatcher that receives each aggregate type. */
public interface CommandBus {

    /**
     * Sends a command; completes once the bus holds it. Fails fast with a {@link CommandBusOverloadedException} when
     * the bus is full for that aggregate type: nothing is half-sent.
     */
    Mono<Void> send(CommandMessage command);

    /**
     * The commands for one aggregate type, as exchanges whose rejection reaches the sender. One receiver per type.
     */
    Flux<MessageExchange<CommandMessage>> receive(NamedAggregate namedAggregate);
}
