package dev.lanes.processing;

import dev.lanes.messaging.EventContext;
import reactor.core.publisher.Mono;

/**
 * Handles one event of type {@code E}. Runs in the aggregate's lane of its processor: the next stream of the same
 * aggregate waits until every function of this event finished. It may be retried (and, after a crash, redelivered):
 * make its side effects idempotent, for example keyed by {@link EventContext#eventKey()}.
 *
 * @param <E> the event type
 */
@FunctionalInterface
public interface EventFunction<E> {

    Mono<Void> handle(E event, EventContext context);
}
