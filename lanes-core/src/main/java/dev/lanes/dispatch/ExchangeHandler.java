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

    /**
     * How an attempt that ran past its lane's {@link HandlerTimeout#timeout()} ends: by default with {@code timeout}, as
     * if the handler had signalled it (then retried or parked by the lane). A handler that keeps its own account of
     * failed attempts (the event side's dead-letter sequencer) overrides it to treat the timeout as it treats any error.
     *
     * <p>Called once per timed-out attempt, on the dispatcher's timeout sweep, after the hung handler's subscription was
     * cancelled and only while the dispatcher runs (while it stops, a timed-out exchange goes back to its source). The
     * returned {@code Mono} is subscribed at once as the attempt's end; it is timed too, and if it also runs past the
     * timeout the attempt fails with the timeout.
     */
    default Mono<Void> timedOut(MessageExchange<M> exchange, HandlerTimeoutException timeout) {
        return Mono.error(timeout);
    }
}
