package dev.lanes.examples.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.examples.inventory.Http.Answer;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.testsupport.TestPostgres;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The service as it ships (its {@code application.yaml}, its beans), on an embedded PostgreSQL and a real port: commands
 * sent over HTTP with an {@code Idempotency-Key}, a resend answered from the store, the stock read back, and the answers
 * a client meets.
 */
@SpringBootTest(classes = InventoryApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class InventoryApplicationTest {
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    @LocalServerPort
    int port;

    @Autowired
    Lanes lanes;

    private Http http;

    @DynamicPropertySource
    static void dataSource(DynamicPropertyRegistry registry) {
        String url = TestPostgres.emptyDatabase();
        registry.add("spring.datasource.url", () -> url);
        registry.add("spring.datasource.username", () -> TestPostgres.USER);
    }

    @BeforeEach
    void client() {
        http = new Http(port, Duration.ofSeconds(20));
    }

    @Test
    void aCommandResentWithItsKeyIsStoredOnceAndTheStockShowsIt() throws Exception {
        String sku = sku();
        Answer received = http.command(sku, "Receive", "{\"quantity\":10}", "receive-" + sku, "PROCESSED");
        Answer reserved = http.command(sku, "Reserve", "{\"quantity\":4}", "reserve-" + sku, "PROCESSED");
        Answer again = http.command(sku, "Reserve", "{\"quantity\":4}", "reserve-" + sku, "PROCESSED");

        assertThat(received.status()).as(received.body()).isEqualTo(200);
        assertThat(received.key()).contains("receive-" + sku);
        assertThat(reserved.<Integer>read("$.version")).isEqualTo(2);
        assertThat(again.status()).as(again.body()).isEqualTo(200);
        assertThat(again.<Integer>read("$.version")).isEqualTo(2);
        assertThat(again.<String>read("$.commandId")).isEqualTo(reserved.<String>read("$.commandId"));
        List<DomainEventStream> stored =
                lanes.eventStore().load(Inventory.item(sku), 1).collectList().block();
        assertThat(stored).extracting(DomainEventStream::requestId).containsExactly("receive-" + sku, "reserve-" + sku);
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(http.get("/stock/" + sku).body())
                        .isEqualTo("{\"onHand\":10,\"reserved\":4,\"available\":6,\"version\":2}"));
        assertThat(http.get("/stock").<Map<String, Object>>read("$")).containsKey(sku);
    }

    @Test
    void aKeyReusedWithAnotherBodyIsRefusedNamingTheMismatch() throws Exception {
        String sku = sku();
        http.command(sku, "Receive", "{\"quantity\":10}", "key-" + sku, "PROCESSED");

        Answer reused = http.command(sku, "Receive", "{\"quantity\":11}", "key-" + sku, "PROCESSED");

        assertThat(reused.status()).as(reused.body()).isEqualTo(422);
        assertThat(reused.<String>read("$.type")).isEqualTo("urn:lanes:problem:request-id-reused");
        assertThat(lanes.eventStore().load(Inventory.item(sku), 1).collectList().block())
                .hasSize(1);
    }

    @Test
    void aRuleRefusesAReservationBeyondWhatIsAvailable() throws Exception {
        String sku = sku();
        http.command(sku, "Receive", "{\"quantity\":3}", UUID.randomUUID().toString(), "PROCESSED");

        Answer refused = http.command(
                sku, "Reserve", "{\"quantity\":5}", UUID.randomUUID().toString(), "PROCESSED");

        assertThat(refused.status()).as(refused.body()).isEqualTo(422);
        assertThat(refused.<String>read("$.detail")).contains("not enough stock: 3 available, 5 to reserve");
    }

    @Test
    void unknownCommandsAndItemsAreNotFound() throws Exception {
        Answer command = http.command(sku(), "Steal", "{}", UUID.randomUUID().toString(), "PROCESSED");
        Answer item = http.get("/stock/" + sku());

        assertThat(command.status()).as(command.body()).isEqualTo(404);
        assertThat(command.<String>read("$.detail")).contains("Receive", "Reserve", "Release");
        assertThat(item.status()).isEqualTo(404);
    }

    @Test
    void theOpenApiDocumentListsTheCommandsAndTheHealthShowsPostgres() throws Exception {
        Answer openApi = http.get("/commands/openapi.json");
        Answer health = http.get("/actuator/health");

        assertThat(openApi.status()).isEqualTo(200);
        assertThat(openApi.<Map<String, Object>>read("$.paths"))
                .containsKeys(
                        "/commands/item/{id}/Receive", "/commands/item/{id}/Reserve", "/commands/item/{id}/Release");
        assertThat(health.status()).as(health.body()).isEqualTo(200);
        assertThat(health.<String>read("$.components.lanes.status")).isEqualTo("UP");
        assertThat(lanes.eventStore()).isInstanceOf(PostgresEventStore.class);
    }

    private static String sku() {
        return "sku-" + UUID.randomUUID();
    }
}
