package dev.lanes.spring.web;

import java.security.Principal;
import java.util.Optional;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/** The endpoint on WebFlux, as functional routes: nothing blocks, the answer is written when the stage is reached. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(RouterFunctions.class)
class LanesWebFluxConfiguration {

    @Bean
    RouterFunction<ServerResponse> lanesCommandRoutes(CommandEndpoint endpoint, LanesWebProperties properties) {
        String base = properties.basePath();
        return RouterFunctions.route()
                .GET(
                        base + "/openapi.json",
                        request -> ServerResponse.ok()
                                .contentType(MediaType.APPLICATION_JSON)
                                .bodyValue(endpoint.openApi()))
                .POST(base + "/{aggregate}/{id}/{command}", request -> send(endpoint, request))
                .build();
    }

    private static Mono<ServerResponse> send(CommandEndpoint endpoint, ServerRequest request) {
        Mono<byte[]> body = request.bodyToMono(byte[].class).defaultIfEmpty(new byte[0]);
        Mono<Optional<String>> principal =
                request.principal().map(Principal::getName).map(Optional::of).defaultIfEmpty(Optional.empty());
        return Mono.zip(body, principal)
                .flatMap(read -> endpoint.send(
                        request.pathVariable("aggregate"),
                        request.pathVariable("id"),
                        request.pathVariable("command"),
                        read.getT1(),
                        request.headers().firstHeader(LanesWeb.IDEMPOTENCY_KEY),
                        request.queryParam(LanesWeb.WAIT).orElse(null),
                        read.getT2().orElse(null)))
                .flatMap(answer -> ServerResponse.status(answer.status())
                        .contentType(answer.problem() ? MediaType.APPLICATION_PROBLEM_JSON : MediaType.APPLICATION_JSON)
                        .headers(headers -> answer.headers().forEach(headers::set))
                        .bodyValue(answer.body()));
    }
}
