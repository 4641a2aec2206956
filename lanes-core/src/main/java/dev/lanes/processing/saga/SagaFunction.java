package dev.lanes.processing.saga;

import reactor.core.publisher.Mono;

/**
 * A saga step: reacts to an event of type {@code E} by recording commands with {@link SagaContext#send}. It never waits
 * for them: they are sent once this step succeeded, and their outcomes come back as {@link SagaReply replies}.
 *
 * @param <E> the event type
 */
@FunctionalInterface
public interface SagaFunction<E> {

    Mono<Void> handle(E event, SagaContext context);
}
