package dev.lanes.spring.web;

import dev.lanes.command.DispatchInterceptor;
import dev.lanes.messaging.CommandMessage;
import reactor.util.context.ContextView;

/**
 * Adds the authenticated principal's name to a command's headers ({@link LanesWeb#PRINCIPAL_HEADER}), so it is stored
 * with the command's events. It reads the name the HTTP endpoint puts in the send's Reactor context ({@link
 * LanesWeb#PRINCIPAL_CONTEXT_KEY}: the request's principal, as Spring Security or the servlet container sets it); a
 * send without one (an anonymous request, a saga's command) passes unchanged. A principal header the sender set itself
 * is replaced, so a client cannot claim another identity through it. Stateless and thread-safe.
 */
public final class PrincipalInterceptor implements DispatchInterceptor {

    @Override
    public CommandMessage intercept(CommandMessage command, ContextView context) {
        return context.<String>getOrEmpty(LanesWeb.PRINCIPAL_CONTEXT_KEY)
                .map(name -> command.withHeader(LanesWeb.PRINCIPAL_HEADER, name))
                .orElse(command);
    }

    @Override
    public String toString() {
        return "PrincipalInterceptor";
    }
}
