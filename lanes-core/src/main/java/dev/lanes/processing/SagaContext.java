package dev.lanes.processing;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.messaging.CommandMessage;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;

/**
 * What a saga function gets: the event's context and a way to send commands whose request ids derive from the
 * triggering event, so a redelivered or retried event never duplicates them (the event store refuses a request id
 * twice on one aggregate, and the gateway reports it as already done).
 *
 * <p>The n-th {@link #send} of a handling gets request id {@code saga:<processor>:<eventKey>:<n>}: keep the order of
 * sends deterministic.
 */
public final class SagaContext {
    private final EventContext event;
    private final String processor;
    private final CommandGateway gateway;
    private final AtomicInteger sends = new AtomicInteger();

    SagaContext(EventContext event, String processor, CommandGateway gateway) {
        this.event = event;
        this.processor = processor;
        this.gateway = gateway;
    }

    public EventContext event() {
        return event;
    }

    /**
     * Sends {@code command} to {@code target} and waits until it was processed. A command that was already processed
     * for this event (a redelivery) completes with an empty result instead of failing; its own business failure
     * errors the returned {@code Mono}, for the saga to compensate.
     */
    public Mono<CommandResult> send(AggregateId target, Object command) {
        String requestId = "saga:" + processor + ":" + event.eventKey() + ":" + sends.incrementAndGet();
        CommandMessage message = CommandMessage.of(target, command, requestId)
                .withHeader("lanes.saga", processor)
                .withHeader("lanes.cause", event.eventKey());
        return gateway.send(message, WaitStage.PROCESSED)
                .onErrorResume(
                        dev.lanes.eventsourcing.DuplicateRequestIdException.class,
                        alreadyDone -> Mono.just(new CommandResult(
                                message.messageId(), requestId, target, WaitStage.PROCESSED, 0, java.util.List.of())));
    }
}
