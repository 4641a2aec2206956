package dev.lanes.spring.stock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.spring.stock.Http.Answer;
import dev.lanes.spring.web.LanesWeb;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * The shipped endpoint on Spring MVC, over a real server: each answer's status and problem, request ids, validation,
 * the principal in the stored headers and the OpenAPI document.
 */
@SpringBootTest(
        classes = {StockApplication.class, CommandEndpointMvcTest.Authenticated.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "lanes.store=memory",
            "lanes.web.timeout=2s",
            "lanes.web.retry-after=3s",
            "lanes.web.max-body-size=1KB"
        })
class CommandEndpointMvcTest {
    static final String USER_HEADER = "X-Test-User";

    /** What an authenticating filter does (as Spring Security's would): the request carries a principal. */
    @TestConfiguration
    static class Authenticated {
        @Bean
        Filter testAuthentication() {
            return (request, response, chain) -> {
                String user = ((HttpServletRequest) request).getHeader(USER_HEADER);
                chain.doFilter(
                        user == null
                                ? request
                                : new HttpServletRequestWrapper((HttpServletRequest) request) {
                                    @Override
                                    public Principal getUserPrincipal() {
                                        return () -> user;
                                    }
                                },
                        response);
            };
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    EventStore store;

    @Autowired
    Stock.Gates gates;

    @Autowired
    List<String> audit;

    Http http;
    String sku;

    @BeforeEach
    void client() {
        http = new Http(port);
        sku = "sku-" + UUID.randomUUID();
    }

    private Answer send(String command, String body, String... headers) {
        return http.post("/commands/stock/" + sku + "/" + command, body, headers);
    }

    private List<DomainEventStream> stored() {
        return store.load(AggregateId.of(Stock.STOCK, sku), 1).collectList().block(Duration.ofSeconds(10));
    }

    private static void assertProblem(Answer answer, int status, String type) {
        assertThat(answer.status()).as(answer.body()).isEqualTo(status);
        assertThat(answer.header("Content-Type"))
                .hasValueSatisfying(value -> assertThat(value).startsWith("application/problem+json"));
        assertThat(answer.<Integer>read("$.status")).isEqualTo(status);
        assertThat(answer.<String>read("$.type")).isEqualTo("urn:lanes:problem:" + type);
    }

    @Test
    void aCommandIsAnsweredWithItsResultAndTheKeyIsEchoed() {
        Answer answer = send("Receive", "{\"quantity\":5,\"note\":\"first\"}", LanesWeb.IDEMPOTENCY_KEY, "key-1");

        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        assertThat(answer.header(LanesWeb.IDEMPOTENCY_KEY)).contains("key-1");
        assertThat(answer.<String>read("$.requestId")).isEqualTo("key-1");
        assertThat(answer.<Boolean>read("$.requestIdGenerated")).isFalse();
        assertThat(answer.<String>read("$.aggregate")).isEqualTo("shop.stock");
        assertThat(answer.<String>read("$.aggregateId")).isEqualTo(sku);
        assertThat(answer.<String>read("$.stage")).isEqualTo("PROCESSED");
        assertThat(answer.<Integer>read("$.version")).isEqualTo(1);
        assertThat(answer.<String>read("$.events[0].type")).isEqualTo("Received");
        assertThat(answer.<Integer>read("$.events[0].event.quantity")).isEqualTo(5);
        assertThat(stored())
                .singleElement()
                .satisfies(stream -> assertThat(stream.requestId()).isEqualTo("key-1"));
    }

    @Test
    void aRequestWithoutAKeyGetsAFreshOneAndIsToldSo() {
        Answer answer = send("Receive", "{\"quantity\":5,\"note\":\"n\"}");

        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        assertThat(answer.<Boolean>read("$.requestIdGenerated")).isTrue();
        String requestId = answer.read("$.requestId");
        assertThat(answer.header(LanesWeb.IDEMPOTENCY_KEY)).contains(requestId);
        assertThat(stored())
                .singleElement()
                .satisfies(stream -> assertThat(stream.requestId()).isEqualTo(requestId));
    }

    @Test
    void theSameKeyWithTheSameBodyIsAnsweredFromTheStoreAndStoredOnce() {
        Answer first = send("Receive", "{\"quantity\":5,\"note\":\"n\"}", LanesWeb.IDEMPOTENCY_KEY, "key-2");

        Answer again = send("Receive", "{ \"note\": \"n\", \"quantity\": 5 }", LanesWeb.IDEMPOTENCY_KEY, "key-2");

        assertThat(again.status()).as(again.body()).isEqualTo(200);
        assertThat(again.<String>read("$.commandId")).isEqualTo(first.read("$.commandId"));
        assertThat(again.<Integer>read("$.version")).isEqualTo(1);
        assertThat(stored()).hasSize(1);
    }

    @Test
    void theSameKeyWithAnotherBodyIsRefusedNamingTheMismatch() {
        send("Receive", "{\"quantity\":5,\"note\":\"n\"}", LanesWeb.IDEMPOTENCY_KEY, "key-3");

        Answer reused = send("Receive", "{\"quantity\":6,\"note\":\"n\"}", LanesWeb.IDEMPOTENCY_KEY, "key-3");

        assertProblem(reused, 422, "request-id-reused");
        assertThat(reused.<String>read("$.detail")).contains("'key-3'").contains("another command");
        assertThat(reused.<String>read("$.storedHash")).startsWith("sha256:");
        assertThat(reused.<String>read("$.sentHash"))
                .startsWith("sha256:")
                .isNotEqualTo(reused.<String>read("$.storedHash"));
        assertThat(reused.<String>read("$.requestId")).isEqualTo("key-3");
        assertThat(stored())
                .singleElement()
                .satisfies(
                        stream -> assertThat(stream.events().get(0).payload()).isEqualTo(new Stock.Received(5)));
    }

    @Test
    void anInvalidCommandIsABadRequestListingItsViolationsAndNothingIsStored() {
        Answer invalid = send("Receive", "{\"quantity\":0,\"note\":\" \"}");

        assertProblem(invalid, 400, "invalid-command");
        assertThat(invalid.<List<Map<String, String>>>read("$.violations"))
                .extracting(violation -> violation.get("path"))
                .containsExactly("note", "quantity");
        assertThat(invalid.<String>read("$.violations[1].message")).contains("greater than 0");
        assertThat(stored()).isEmpty();
    }

    @Test
    void unreadableBodiesAndUnknownWaitStagesAreBadRequests() {
        assertProblem(send("Receive", "{\"quantity\":"), 400, "unreadable-command");
        assertProblem(send("Receive", "{\"quantity\":1,\"note\":\"n\",\"colour\":\"red\"}"), 400, "unreadable-command");
        assertProblem(send("Receive", ""), 400, "unreadable-command");
        Answer wait = http.post("/commands/stock/" + sku + "/Receive?wait=SOON", "{\"quantity\":1,\"note\":\"n\"}");
        assertProblem(wait, 400, "bad-wait");
        assertThat(wait.<String>read("$.detail"))
                .contains("SENT, PROCESSED, PROJECTED")
                .contains("'SOON'");
        assertProblem(
                send("Receive", "{\"quantity\":1,\"note\":\"n\"}", LanesWeb.IDEMPOTENCY_KEY, "k".repeat(201)),
                400,
                "bad-idempotency-key");
        assertThat(stored()).isEmpty();
    }

    @Test
    void anUnknownAggregateOrCommandIsNotFoundNamingWhatThereIs() {
        Answer aggregate = http.post("/commands/basket/b-1/Receive", "{}");
        Answer command = send("Steal", "{}");

        assertProblem(aggregate, 404, "unknown-aggregate");
        assertThat(aggregate.<String>read("$.detail")).contains("'basket'").contains("stock");
        assertProblem(command, 404, "unknown-command");
        assertThat(command.<String>read("$.detail")).contains("'Steal'").contains("Receive", "Reserve");
    }

    @Test
    void aRuleViolationIsUnprocessable() {
        send("Receive", "{\"quantity\":2,\"note\":\"n\"}");

        Answer refused = send("Reserve", "{\"quantity\":3}");

        assertProblem(refused, 422, "command-rejected");
        assertThat(refused.<String>read("$.detail")).contains("out of stock: 2 on hand, 3 wanted");
        assertThat(refused.<String>read("$.rejection")).isEqualTo("OutOfStock");
        assertThat(stored()).hasSize(1);
    }

    @Test
    void aRefusedKeyIsAnsweredWithItsRefusalAfterTheStockArrivedAndANewKeyIsDecided() {
        Answer refused = send("Reserve", "{\"quantity\":3}", LanesWeb.IDEMPOTENCY_KEY, "reserve-1");
        assertProblem(refused, 422, "command-rejected");
        send("Receive", "{\"quantity\":5,\"note\":\"n\"}");

        Answer resent = send("Reserve", "{\"quantity\":3}", LanesWeb.IDEMPOTENCY_KEY, "reserve-1");

        assertProblem(resent, 422, "command-rejected");
        assertThat(resent.<String>read("$.detail"))
                .contains("out of stock: 0 on hand, 3 wanted")
                .contains("new request id");
        assertThat(resent.<String>read("$.rejection")).isEqualTo("OutOfStock");
        assertThat(resent.<String>read("$.rejectedAt")).isNotBlank();
        assertThat(stored()).as("the resend was not decided again").hasSize(1);
        Answer fresh = send("Reserve", "{\"quantity\":3}", LanesWeb.IDEMPOTENCY_KEY, "reserve-2");
        assertThat(fresh.status()).as(fresh.body()).isEqualTo(200);
        assertThat(stored()).hasSize(2);
    }

    @Test
    void aBodyOverTheLimitIsTooLargeAndNothingIsStored() {
        Answer large = send("Receive", "{\"quantity\":1,\"note\":\"" + "n".repeat(2048) + "\"}");

        assertProblem(large, 413, "body-too-large");
        assertThat(large.<String>read("$.detail"))
                .contains("lanes.web.max-body-size")
                .contains("1024 bytes");
        assertThat(stored()).isEmpty();
    }

    @Test
    void aVersionConflictIsAConflict() {
        Answer conflict = send("Contend", "{}");

        assertProblem(conflict, 409, "version-conflict");
        assertThat(conflict.<String>read("$.detail")).contains(sku);
    }

    @Test
    void aTimeoutIsUnavailableWithRetryAfterAndTheStorageOutcomeAndTheSameKeyLaterAnswers() throws Exception {
        String gate = "timeout-" + sku;
        try {
            Answer late = send("Hold", "{\"gate\":\"" + gate + "\"}", LanesWeb.IDEMPOTENCY_KEY, "key-4");

            assertProblem(late, 503, "stage-not-reached");
            assertThat(late.header("Retry-After")).contains("3");
            assertThat(late.<String>read("$.reason")).isEqualTo("TIMED_OUT");
            assertThat(late.<String>read("$.storage")).isEqualTo("UNKNOWN");
            assertThat(late.<String>read("$.requestId")).isEqualTo("key-4");
            assertThat(gates.entered(gate).await(10, TimeUnit.SECONDS)).isTrue();
        } finally {
            gates.release(gate);
        }
        Answer resent = send("Hold", "{\"gate\":\"" + gate + "\"}", LanesWeb.IDEMPOTENCY_KEY, "key-4");
        assertThat(resent.status()).as(resent.body()).isEqualTo(200);
        assertThat(stored()).hasSize(1);
    }

    @Test
    void theAuthenticatedPrincipalIsStoredWithTheCommandAndAnAnonymousOneIsNot() {
        send("Receive", "{\"quantity\":1,\"note\":\"n\"}", USER_HEADER, "ada");
        send("Receive", "{\"quantity\":1,\"note\":\"n\"}");

        assertThat(stored())
                .extracting(stream -> stream.headers().get(LanesWeb.PRINCIPAL_HEADER))
                .containsExactly("ada", null);
        assertThat(stored()).allSatisfy(stream -> assertThat(stream.headers()).containsKey(CommandMessage.HASH_HEADER));
        // a HandlerInterceptor bean runs around the handler in the lane and sees the header
        assertThat(audit).contains("ada Receive " + sku, "anonymous Receive " + sku);
    }

    @Test
    void theOpenApiDocumentDescribesEachRegisteredCommand() {
        Answer document = http.get("/commands/openapi.json");

        assertThat(document.status()).as(document.body()).isEqualTo(200);
        assertThat(document.<String>read("$.openapi")).isEqualTo("3.1.0");
        assertThat(document.<Map<String, Object>>read("$.paths"))
                .containsOnlyKeys(
                        "/commands/stock/{id}/Receive",
                        "/commands/stock/{id}/Reserve",
                        "/commands/stock/{id}/Hold",
                        "/commands/stock/{id}/Contend");
        String receive = "$.paths['/commands/stock/{id}/Receive'].post";
        assertThat(document.<String>read(receive + ".requestBody.content['application/json'].schema.$ref"))
                .isEqualTo("#/components/schemas/stock.Receive");
        assertThat(document.<List<String>>read(receive + ".parameters[*].name"))
                .containsExactly("id", LanesWeb.IDEMPOTENCY_KEY, LanesWeb.WAIT);
        assertThat(document.<Map<String, Object>>read(receive + ".responses"))
                .containsOnlyKeys("200", "400", "404", "409", "413", "422", "503");
        String schema = "$.components.schemas['stock.Receive']";
        assertThat(document.<List<String>>read(schema + ".required")).containsExactly("quantity", "note");
        assertThat(document.<String>read(schema + ".properties.quantity.type")).isEqualTo("integer");
        assertThat(document.<Integer>read(schema + ".properties.quantity.exclusiveMinimum"))
                .isZero();
        assertThat(document.<Integer>read(schema + ".properties.note.minLength"))
                .isEqualTo(1);
    }
}
