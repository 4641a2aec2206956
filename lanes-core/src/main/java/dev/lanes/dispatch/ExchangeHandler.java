package dev.lanes.dispatch;

import reactor.core.publisher.Mono;

/**
 * Handles one exchange. Called on a worker of the aggregate type's scheduler, one exchange at a time per lane; the next
 * exchange of the lane starts only after the returned {@link Mono} terminated, on whatever thread it terminated.
 *
 * <p>An error (thrown or signalled) is retried by the lane's {@link RetryPolicy} and then parked; it never stops the
 * dispatcher. The handler must not block its thread and must not acknowledge the exchange: the dispatcher does.
 *
 * @param <M> the message type
 */
@FunctionalInterface
public interface ExchangeHandler<M> {

    Mono<Void> handle(MessageExchange<M> exchange);
}
