package dev.lanes.command;

import dev.lanes.messaging.CommandMessage;
import reactor.util.context.ContextView;

/**
 * Runs on the sender's side before a command is sent: validates it, or enriches its headers (the authenticated
 * principal, a tenant, a correlation id). Registered with {@code Lanes.Builder#dispatchInterceptor}; the gateway runs
 * them on every send, a saga's commands included.
 *
 * <p><b>Order.</b> In registration order, each given what the previous one returned; the gateway sends what the last
 * one returns. They run before the request-id lookup, so what they add to the headers is stored with the command's
 * events (and a refused command reaches no store).
 *
 * <p><b>Threading.</b> Called once per send, when the send's {@code Mono} is subscribed, on the subscribing thread
 * (the request thread of a blocking caller, an event loop for a reactive one): it must not block. It may be called
 * concurrently for different sends, so an implementation must be thread-safe. {@code context} is the sender's Reactor
 * context: a reactive caller passes request-scoped values there ({@code contextWrite}), as thread-locals do not follow
 * it.
 *
 * <p><b>Failure.</b> An exception thrown here ends the send with that exception, unchanged: nothing is sent or stored
 * and later interceptors do not run. Throw a {@link dev.lanes.api.NonRecoverableException} for input that cannot
 * become valid by retrying.
 */
@FunctionalInterface
public interface DispatchInterceptor {

    /**
     * The command to send instead of {@code command}: the same one, or a copy with more headers ({@link
     * CommandMessage#withHeader}). It must keep the message id, aggregate id and request id.
     *
     * @param context the sender's Reactor context (empty for a plain {@code block()})
     */
    CommandMessage intercept(CommandMessage command, ContextView context);
}
