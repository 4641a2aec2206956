package dev.lanes.processing;

import reactor.core.publisher.Mono;

/**
 * A saga step: reacts to an event of type {@code E} by sending commands through {@link SagaContext#send}.
 *
 * @param <E> the event type
 */
@FunctionalInterface
public interface SagaFunction<E> {

    Mono<Void> handle(E event, SagaContext context);
}
