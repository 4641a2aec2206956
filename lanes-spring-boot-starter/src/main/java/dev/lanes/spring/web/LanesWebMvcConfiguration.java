package dev.lanes.spring.web;

import java.security.Principal;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The endpoint on Spring MVC, as functional routes. The request thread waits for the command's stage (at most the
 * command timeout): size the server's threads for the commands in flight, or run on virtual threads ({@code
 * spring.threads.virtual.enabled=true}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(RouterFunctions.class)
class LanesWebMvcConfiguration {

    @Bean
    RouterFunction<ServerResponse> lanesCommandRoutes(CommandEndpoint endpoint, LanesWebProperties properties) {
        String base = properties.basePath();
        return RouterFunctions.route()
                .GET(
                        base + "/openapi.json",
                        request -> ServerResponse.ok()
                                .contentType(MediaType.APPLICATION_JSON)
                                .body(endpoint.openApi()))
                .POST(base + "/{aggregate}/{id}/{command}", request -> send(endpoint, request))
                .build();
    }

    private static ServerResponse send(CommandEndpoint endpoint, ServerRequest request) throws Exception {
        int limit = endpoint.maxBodyBytes();
        byte[] read = request.servletRequest().getInputStream().readNBytes(limit + 1);
        byte[] body = read.length > limit ? null : read; // not read further: answered 413
        String tenantHeader = endpoint.tenantHeader();
        Answer answer = endpoint.send(
                        request.pathVariable("aggregate"),
                        request.pathVariable("id"),
                        request.pathVariable("command"),
                        body,
                        request.headers().firstHeader(LanesWeb.IDEMPOTENCY_KEY),
                        request.param(LanesWeb.WAIT).orElse(null),
                        request.principal().map(Principal::getName).orElse(null),
                        tenantHeader == null ? null : request.headers().firstHeader(tenantHeader))
                .block();
        if (answer == null) {
            throw new IllegalStateException(
                    "Lanes web endpoint: the send of " + request.path() + " ended without an answer");
        }
        ServerResponse.BodyBuilder response = ServerResponse.status(answer.status())
                .contentType(answer.problem() ? MediaType.APPLICATION_PROBLEM_JSON : MediaType.APPLICATION_JSON);
        for (Map.Entry<String, String> header : answer.headers().entrySet()) {
            response.header(header.getKey(), header.getValue());
        }
        return response.body(answer.body());
    }
}
