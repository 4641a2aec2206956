package dev.lanes.spring.stock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.spring.web.LanesWeb;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * The same endpoint on WebFlux (the application made reactive although Spring MVC is on the class path): each kind of
 * answer once, the principal from the exchange, and the OpenAPI document.
 */
@SpringBootTest(
        classes = {StockApplication.class, CommandEndpointWebFluxTest.Authenticated.class},
        properties = {
            "spring.main.web-application-type=reactive",
            "spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "lanes.store=memory",
            "lanes.web.base-path=/api/commands",
            "lanes.web.timeout=2s",
            "lanes.web.max-body-size=1KB"
        })
class CommandEndpointWebFluxTest {

    /** What an authenticating filter does (as Spring Security's would): the exchange carries a principal. */
    @TestConfiguration
    static class Authenticated {
        @Bean
        WebFilter testAuthentication() {
            return (exchange, chain) -> {
                String user = exchange.getRequest().getHeaders().getFirst("X-Test-User");
                Principal principal = () -> String.valueOf(user);
                return chain.filter(
                        user == null
                                ? exchange
                                : exchange.mutate()
                                        .principal(Mono.just(principal))
                                        .build());
            };
        }
    }

    @Autowired
    ApplicationContext context;

    @Autowired
    EventStore store;

    @Autowired
    Stock.Gates gates;

    WebTestClient client;
    String sku;

    @BeforeEach
    void client() {
        client = WebTestClient.bindToApplicationContext(context)
                .configureClient()
                .responseTimeout(Duration.ofSeconds(20))
                .build();
        sku = "sku-" + UUID.randomUUID();
    }

    private WebTestClient.ResponseSpec send(String command, String body, String... headers) {
        WebTestClient.RequestBodySpec request =
                client.post().uri("/api/commands/stock/" + sku + "/" + command).contentType(MediaType.APPLICATION_JSON);
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return request.bodyValue(body).exchange();
    }

    private List<DomainEventStream> stored() {
        return store.load(AggregateId.of(Stock.STOCK, sku), 1).collectList().block(Duration.ofSeconds(10));
    }

    private static void problem(WebTestClient.ResponseSpec response, int status, String type) {
        response.expectStatus()
                .isEqualTo(status)
                .expectHeader()
                .contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody()
                .jsonPath("$.type")
                .isEqualTo("urn:lanes:problem:" + type)
                .jsonPath("$.status")
                .isEqualTo(status);
    }

    @Test
    void aBodyOverTheLimitIsTooLargeAndNothingIsStored() {
        problem(send("Receive", "{\"quantity\":1,\"note\":\"" + "n".repeat(2048) + "\"}"), 413, "body-too-large");
        assertThat(stored()).isEmpty();
    }

    @Test
    void aCommandIsAnsweredAndTheSameKeyIsAnsweredFromTheStore() {
        send("Receive", "{\"quantity\":5,\"note\":\"n\"}", LanesWeb.IDEMPOTENCY_KEY, "key-1")
                .expectStatus()
                .isOk()
                .expectHeader()
                .valueEquals(LanesWeb.IDEMPOTENCY_KEY, "key-1")
                .expectBody()
                .jsonPath("$.version")
                .isEqualTo(1)
                .jsonPath("$.events[0].event.quantity")
                .isEqualTo(5)
                .jsonPath("$.requestIdGenerated")
                .isEqualTo(false);
        send("Receive", "{\"quantity\":5,\"note\":\"n\"}", LanesWeb.IDEMPOTENCY_KEY, "key-1")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.version")
                .isEqualTo(1);

        problem(
                send("Receive", "{\"quantity\":7,\"note\":\"n\"}", LanesWeb.IDEMPOTENCY_KEY, "key-1"),
                422,
                "request-id-reused");
        assertThat(stored()).hasSize(1);
    }

    @Test
    void aMissingKeyIsMadeAndSaidSo() {
        send("Receive", "{\"quantity\":5,\"note\":\"n\"}")
                .expectStatus()
                .isOk()
                .expectHeader()
                .exists(LanesWeb.IDEMPOTENCY_KEY)
                .expectBody()
                .jsonPath("$.requestIdGenerated")
                .isEqualTo(true);
    }

    @Test
    void badInputUnknownNamesRulesAndConflictsGetTheirProblems() {
        problem(send("Receive", "{\"quantity\":0,\"note\":\"n\"}"), 400, "invalid-command");
        problem(send("Receive", "not json"), 400, "unreadable-command");
        problem(send("Steal", "{}"), 404, "unknown-command");
        problem(
                client.post()
                        .uri("/api/commands/basket/b-1/Receive")
                        .contentType(MediaType.APPLICATION_JSON)
                        .bodyValue("{}")
                        .exchange(),
                404,
                "unknown-aggregate");
        problem(send("Reserve", "{\"quantity\":1}"), 422, "command-rejected");
        problem(send("Contend", "{}"), 409, "version-conflict");
        // only the competing writer's streams: none of the refused commands stored anything
        assertThat(stored()).allSatisfy(stream -> assertThat(stream.requestId()).startsWith("other-"));
    }

    @Test
    void aTimeoutIsUnavailableWithRetryAfterAndTheStorage() throws Exception {
        String gate = "flux-" + sku;
        try {
            send("Hold", "{\"gate\":\"" + gate + "\"}", LanesWeb.IDEMPOTENCY_KEY, "key-2")
                    .expectStatus()
                    .isEqualTo(503)
                    .expectHeader()
                    .valueEquals("Retry-After", "1")
                    .expectBody()
                    .jsonPath("$.reason")
                    .isEqualTo("TIMED_OUT")
                    .jsonPath("$.storage")
                    .isEqualTo("UNKNOWN")
                    .jsonPath("$.requestId")
                    .isEqualTo("key-2");
            assertThat(gates.entered(gate).await(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            gates.release(gate);
        }
    }

    @Test
    void thePrincipalOfTheExchangeIsStoredWithTheCommand() {
        send("Receive", "{\"quantity\":1,\"note\":\"n\"}", "X-Test-User", "grace")
                .expectStatus()
                .isOk();

        assertThat(stored())
                .singleElement()
                .satisfies(stream -> assertThat(stream.headers()).containsEntry(LanesWeb.PRINCIPAL_HEADER, "grace"));
    }

    @Test
    void theOpenApiDocumentIsAtTheBasePath() {
        client.get()
                .uri("/api/commands/openapi.json")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.openapi")
                .isEqualTo("3.1.0")
                .jsonPath("$.paths['/api/commands/stock/{id}/Reserve'].post.operationId")
                .isEqualTo("stock.Reserve");
    }
}
