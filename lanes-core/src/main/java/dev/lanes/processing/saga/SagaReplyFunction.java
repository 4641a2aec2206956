package dev.lanes.processing.saga;

import reactor.core.publisher.Mono;

/**
 * Reacts to the outcome of a command of type {@code C} that the saga sent, for example by compensating a refused
 * command. Runs in the saga's lane of the aggregate whose event caused the command; may send more commands through
 * {@code context}. Retried (and, after a crash, redelivered) like an event function: keep it idempotent.
 *
 * @param <C> the command type
 */
@FunctionalInterface
public interface SagaReplyFunction<C> {

    Mono<Void> handle(SagaReply<C> reply, SagaContext context);
}
