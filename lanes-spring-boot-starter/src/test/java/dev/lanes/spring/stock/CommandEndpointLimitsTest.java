package dev.lanes.spring.stock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.spring.LanesBuilderCustomizer;
import dev.lanes.spring.stock.Http.Answer;
import dev.lanes.spring.web.LanesWeb;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * The endpoint at its limits: a command lane that holds four queued commands answers the next with 503, {@code
 * Retry-After} and {@code storage: NOT_STORED} (nothing stored); with {@code lanes.web.tenant-header} the
 * tenant names the aggregate, and a request without it is refused.
 */
@SpringBootTest(
        classes = {StockApplication.class, CommandEndpointLimitsTest.SmallLanes.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "lanes.store=memory",
            "lanes.web.timeout=5s",
            "lanes.web.retry-after=2s",
            "lanes.web.tenant-header=X-Tenant"
        })
class CommandEndpointLimitsTest {
    private static final String TENANT = "X-Tenant";
    private static final int LANE_BOUND = 4;

    /** Command lanes that queue at most four commands each, refusing the next (as the default settings do). */
    @TestConfiguration
    static class SmallLanes {
        @Bean
        LanesBuilderCustomizer smallCommandLanes() {
            return builder -> builder.commandSettings(CommandDispatcher.DEFAULT_SETTINGS.withBounds(LANE_BOUND, 1024));
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    EventStore store;

    @Autowired
    Stock.Gates gates;

    private final ExecutorService clients = Executors.newFixedThreadPool(16);
    Http http;
    String sku;

    @BeforeEach
    void client() {
        http = new Http(port);
        sku = "sku-" + UUID.randomUUID();
    }

    @AfterEach
    void stopClients() {
        clients.shutdownNow();
    }

    private Answer send(String tenant, String command, String body, String... headers) {
        List<String> all = new ArrayList<>(List.of(headers));
        all.add(TENANT);
        all.add(tenant);
        return http.post("/commands/stock/" + sku + "/" + command, body, all.toArray(String[]::new));
    }

    private List<DomainEventStream> stored(String tenant) {
        return store.load(AggregateId.of(Stock.STOCK, sku, tenant), 1)
                .collectList()
                .block(Duration.ofSeconds(10));
    }

    @Test
    void aFullLaneIsUnavailableWithRetryAfterAndNothingStored() throws Exception {
        String gate = "overload-" + sku;
        List<CompletableFuture<Answer>> fills = new ArrayList<>();
        CompletableFuture<Answer> hold;
        try {
            hold = CompletableFuture.supplyAsync(() -> send("t-1", "Hold", "{\"gate\":\"" + gate + "\"}"), clients);
            assertThat(gates.entered(gate).await(10, TimeUnit.SECONDS)).isTrue();
            // the lane is held by the Hold: more commands for the aggregate than the lane queues, at once
            for (int i = 0; i < LANE_BOUND + 3; i++) {
                String key = "fill-" + i;
                fills.add(CompletableFuture.supplyAsync(
                        () -> send("t-1", "Receive", "{\"quantity\":1,\"note\":\"n\"}", LanesWeb.IDEMPOTENCY_KEY, key),
                        clients));
            }
            Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> fills.stream()
                            .anyMatch(fill -> fill.isDone() && fill.join().status() == 503));
        } finally {
            gates.release(gate);
        }
        assertThat(hold.get(20, TimeUnit.SECONDS).status()).isEqualTo(200);
        List<Answer> answers = new ArrayList<>();
        for (CompletableFuture<Answer> fill : fills) {
            answers.add(fill.get(20, TimeUnit.SECONDS));
        }
        List<Answer> overloaded =
                answers.stream().filter(answer -> answer.status() == 503).toList();
        List<Answer> processed =
                answers.stream().filter(answer -> answer.status() == 200).toList();
        assertThat(overloaded.size() + processed.size())
                .as("every answer is 200 or 503")
                .isEqualTo(answers.size());
        assertThat(overloaded).isNotEmpty().allSatisfy(answer -> {
            assertThat(answer.<String>read("$.type")).isEqualTo("urn:lanes:problem:overloaded");
            assertThat(answer.header("Retry-After")).contains("2");
            assertThat(answer.<String>read("$.storage")).isEqualTo("NOT_STORED");
            assertThat(answer.<String>read("$.detail")).contains("is full").contains("maxQueuedPerLane=4");
        });
        assertThat(stored("t-1"))
                .as("the Hold and the accepted commands, nothing of the refused")
                .hasSize(1 + processed.size());
    }

    @Test
    void theTenantHeaderNamesTheAggregatesTenantAndARequestWithoutItIsRefused() {
        Answer a = send("t-a", "Receive", "{\"quantity\":2,\"note\":\"n\"}");
        Answer b = send("t-b", "Receive", "{\"quantity\":7,\"note\":\"n\"}");
        Answer none = http.post("/commands/stock/" + sku + "/Receive", "{\"quantity\":1,\"note\":\"n\"}");

        assertThat(a.status()).as(a.body()).isEqualTo(200);
        assertThat(b.status()).as(b.body()).isEqualTo(200);
        assertThat(b.<Integer>read("$.version"))
                .as("another tenant's aggregate")
                .isEqualTo(1);
        assertThat(stored("t-a"))
                .singleElement()
                .satisfies(stream -> assertThat(stream.payloads()).containsExactly(new Stock.Received(2)));
        assertThat(stored("t-b"))
                .singleElement()
                .satisfies(stream -> assertThat(stream.payloads()).containsExactly(new Stock.Received(7)));
        assertThat(none.status()).as(none.body()).isEqualTo(400);
        assertThat(none.<String>read("$.type")).isEqualTo("urn:lanes:problem:missing-tenant");
        assertThat(none.<String>read("$.detail")).contains("X-Tenant");
    }
}
