package dev.lanes.command;

import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.flow.IntakeGate;
import dev.lanes.messaging.CommandMessage;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Carries commands to the one dispatcher that receives each aggregate type. */
public interface CommandBus {

    /**
     * Sends a command; completes once the bus holds it. Fails fast, and nothing is half-sent, with a {@link
     * CommandBusOverloadedException} when the bus is full for that aggregate type, or with an {@link
     * UnknownAggregateTypeException} when no receiver declared the type.
     */
    Mono<Void> send(CommandMessage command);

    /**
     * Declares a receiver of one aggregate type and returns its commands, as exchanges whose rejection reaches the
     * sender. The declaration takes effect when this method returns, before the flux is subscribed. One receiver per
     * type.
     */
    Flux<MessageExchange<CommandMessage>> receive(NamedAggregate namedAggregate);

    /**
     * As {@link #receive(NamedAggregate)}, pacing new commands by {@code gate}: while it is closed the receiver gets no
     * new commands (they wait in the bus, under its bound), while follow-ups ({@link CommandMessage#isFollowUp()})
     * still flow. The default ignores the gate: a bus that holds no commands in memory needs no pacing here.
     */
    default Flux<MessageExchange<CommandMessage>> receive(NamedAggregate namedAggregate, IntakeGate gate) {
        return receive(namedAggregate);
    }
}
