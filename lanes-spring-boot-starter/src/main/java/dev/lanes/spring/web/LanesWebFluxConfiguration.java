package dev.lanes.spring.web;

import java.security.Principal;
import java.util.Optional;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.BodyExtractors;
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
        int limit = endpoint.maxBodyBytes();
        // joined up to the limit; beyond it, answered 413 without reading further
        Mono<Optional<byte[]>> body = DataBufferUtils.join(request.body(BodyExtractors.toDataBuffers()), limit)
                .map(buffer -> {
                    byte[] bytes = new byte[buffer.readableByteCount()];
                    buffer.read(bytes);
                    DataBufferUtils.release(buffer);
                    return Optional.of(bytes);
                })
                .defaultIfEmpty(Optional.of(new byte[0]))
                .onErrorResume(DataBufferLimitException.class, tooLarge -> Mono.just(Optional.empty()));
        String tenantHeader = endpoint.tenantHeader();
        Mono<Optional<String>> principal =
                request.principal().map(Principal::getName).map(Optional::of).defaultIfEmpty(Optional.empty());
        return Mono.zip(body, principal)
                .flatMap(read -> endpoint.send(
                        request.pathVariable("aggregate"),
                        request.pathVariable("id"),
                        request.pathVariable("command"),
                        read.getT1().orElse(null),
                        request.headers().firstHeader(LanesWeb.IDEMPOTENCY_KEY),
                        request.queryParam(LanesWeb.WAIT).orElse(null),
                        read.getT2().orElse(null),
                        tenantHeader == null ? null : request.headers().firstHeader(tenantHeader)))
                .flatMap(answer -> ServerResponse.status(answer.status())
                        .contentType(answer.problem() ? MediaType.APPLICATION_PROBLEM_JSON : MediaType.APPLICATION_JSON)
                        .headers(headers -> answer.headers().forEach(headers::set))
                        .bodyValue(answer.body()));
    }
}
