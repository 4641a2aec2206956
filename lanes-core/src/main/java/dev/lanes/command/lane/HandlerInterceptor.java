package dev.lanes.command.lane;

import dev.lanes.messaging.CommandMessage;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * Runs around a command's handler inside the aggregate's lane: audit, timing, authorization against the state, a check
 * of the events a handler produced. Registered with {@code Lanes.Builder#handlerInterceptor}; applies to every
 * aggregate's commands.
 *
 * <p><b>Order.</b> The first registered is the outermost: it is called first and sees what every later one returned.
 * An interceptor is called again for each attempt of a command (a version conflict is retried in the lane, with the
 * reloaded state); a command answered from the store (a redelivery) is not decided again and not intercepted.
 *
 * <p><b>Threading.</b> Called on the lane's worker, one command at a time per aggregate, and concurrently for
 * different aggregates: an implementation must be thread-safe and must not block (return a {@code Mono} for slow work).
 *
 * <p><b>Failure.</b> An exception thrown here, or an error of the returned {@code Mono}, is the command's failure as a
 * handler's exception would be: it reaches the sender with its type and message, nothing is stored and the aggregate
 * is unchanged. Not subscribing {@code handler} skips the handler; returning other events stores those.
 */
@FunctionalInterface
public interface HandlerInterceptor {

    /**
     * The events the command produces.
     *
     * @param state the aggregate's state the handler decides on
     * @param handler the handler (or the next interceptor): it runs when subscribed
     */
    Mono<List<Object>> intercept(CommandMessage command, Object state, Mono<List<Object>> handler);
}
