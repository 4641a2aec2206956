package dev.lanes.spring.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.examples.bank.TransferSaga;
import dev.lanes.micrometer.LanesMicrometer;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.spring.LanesLifecycle;
import dev.lanes.spring.sample.BankHttp.Answer;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

/**
 * The bank sample started by Spring Boot on a random port: commands over HTTP at each wait stage, the projection read
 * back over HTTP, the saga's transfers, the bank's refusals, the health endpoint and the meters.
 */
@SpringBootTest(
        classes = BankApplication.class,
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            // no DataSource in this one: the in-memory store (BankApplicationPostgresTest gives it one)
            "spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "lanes.store=memory",
            "lanes.shutdown-timeout=10s",
            "management.endpoint.health.show-details=always",
            "management.endpoints.web.exposure.include=health,metrics"
        })
class BankApplicationTest {
    @LocalServerPort
    int port;

    @Autowired
    Lanes lanes;

    @Autowired
    EventStore eventStore;

    @Autowired
    MeterRegistry registry;

    @Autowired
    LanesLifecycle lifecycle;

    BankHttp http;

    @BeforeEach
    void client() {
        http = new BankHttp(port);
    }

    @Test
    void theStarterRunsLanesInMemoryWhenTheApplicationHasNoDataSource() {
        assertThat(lanes.runtime().state()).isEqualTo(LanesRuntime.State.RUNNING);
        assertThat(eventStore).isSameAs(lanes.eventStore());
        assertThat(eventStore.getClass().getSimpleName()).isEqualTo("InMemoryEventStore");
    }

    @Test
    void lanesStartsBeforeTheWebServerAndStopsAfterIt() {
        // Spring starts lower phases first and stops them last
        assertThat(lifecycle.getPhase())
                .isLessThan(WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE)
                .isLessThan(WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE);
        assertThat(lifecycle.isRunning()).isTrue();
    }

    @Test
    void depositsAnsweredAtProjectedShowInTheProjection() {
        String id = account();
        Answer opened = http.command(id, "OpenAccount", "PROCESSED", "{\"owner\":\"ada\"}");
        assertThat(opened.status()).as(opened.body()).isEqualTo(200);
        assertThat(opened.<Integer>read("$.version")).isEqualTo(1);
        assertThat(opened.<String>read("$.events[0].type")).isEqualTo("AccountOpened");

        Answer deposit = http.command(id, "Deposit", "PROJECTED", "{\"amount\":100}");

        assertThat(deposit.status()).as(deposit.body()).isEqualTo(200);
        assertThat(deposit.<String>read("$.stage")).isEqualTo("PROJECTED");
        assertThat(deposit.<Integer>read("$.version")).isEqualTo(2);
        assertThat(deposit.<String>read("$.aggregateId")).isEqualTo(id);
        assertThat(deposit.<Integer>read("$.events[0].event.amount")).isEqualTo(100);
        Answer balance = http.get("/balances/" + id);
        assertThat(balance.<Integer>read("$.balance")).isEqualTo(100);
        assertThat(balance.<String>read("$.owner")).isEqualTo("ada");
        assertThat(balance.<Integer>read("$.version")).isEqualTo(2);
    }

    @Test
    void aTransferIsCreditedByTheSagaAndBothBalancesShowIt() {
        String from = openedWith(500);
        String to = openedWith(0);

        // a transfer is a withdrawal whose reference names the transfer and the account to credit
        String reference = TransferSaga.debitReference(UUID.randomUUID().toString(), to);
        Answer transfer =
                http.command(from, "Withdraw", "PROJECTED", "{\"amount\":120,\"reference\":\"" + reference + "\"}");

        assertThat(transfer.status()).as(transfer.body()).isEqualTo(200);
        assertThat(http.get("/balances/" + from).<Integer>read("$.balance")).isEqualTo(380);
        // the credit is the saga's own command, sent after the debit was projected
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(http.get("/balances/" + to).<Integer>read("$.balance"))
                        .isEqualTo(120));
    }

    @Test
    void eachWaitStageIsAnsweredAtThatStage() {
        String id = openedWith(10);

        Answer sent = http.command(id, "Deposit", "SENT", "{\"amount\":1}");
        Answer processed = http.command(id, "Deposit", "PROCESSED", "{\"amount\":1}");

        assertThat(sent.<String>read("$.stage")).isEqualTo("SENT");
        assertThat(sent.<Integer>read("$.version")).isZero();
        assertThat(sent.<List<?>>read("$.events")).isEmpty();
        assertThat(processed.<String>read("$.stage")).isEqualTo("PROCESSED");
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(http.get("/balances/" + id).<Integer>read("$.balance"))
                        .isEqualTo(12));
    }

    @Test
    void aRefusedCommandIsAnsweredWithTheBankRuleAndChangesNothing() {
        String id = openedWith(50);

        Answer refused = http.command(id, "Withdraw", "PROCESSED", "{\"amount\":80}");

        assertThat(refused.status()).isEqualTo(422);
        assertThat(refused.<String>read("$.rejection")).isEqualTo("BankRuleViolation");
        assertThat(refused.<String>read("$.detail")).contains("insufficient funds: balance 50, withdrawal 80");
        assertThat(http.get("/balances/" + id).<Integer>read("$.version")).isEqualTo(2);
    }

    @Test
    void anUnknownCommandIsNotFound() {
        Answer answer = http.command(account(), "Borrow", "PROCESSED", "{\"amount\":80}");

        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.<String>read("$.detail")).contains("has no command 'Borrow'");
    }

    @Test
    void aDepositResentWithItsKeyIsAppliedOnce() {
        String id = openedWith(10);

        Answer first = http.command(id, "Deposit", "PROCESSED", "{\"amount\":5}", "deposit-1");
        Answer resent = http.command(id, "Deposit", "PROCESSED", "{\"amount\":5}", "deposit-1");

        assertThat(resent.<Integer>read("$.version")).isEqualTo(first.<Integer>read("$.version"));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(http.get("/balances/" + id).<Integer>read("$.balance"))
                        .isEqualTo(15));
    }

    @Test
    void theHealthEndpointShowsTheRuntimeUpWithItsParkingLots() {
        Answer health = http.get("/actuator/health/lanes");

        assertThat(health.status()).as(health.body()).isEqualTo(200);
        assertThat(health.<String>read("$.status")).isEqualTo("UP");
        assertThat(health.<String>read("$.details.state")).isEqualTo("RUNNING");
        assertThat(health.<Map<String, Integer>>read("$.details.parked"))
                .containsExactlyInAnyOrderEntriesOf(Map.of("commands", 0, "events", 0));
    }

    @Test
    void theRuntimeAndDispatcherMetersAreInTheApplicationsRegistry() {
        http.command(account(), "OpenAccount", "PROCESSED", "{\"owner\":\"bob\"}");

        assertThat(registry.find(LanesMicrometer.RUNTIME_STATE).gauges()).isNotEmpty();
        assertThat(registry.find(LanesMicrometer.QUEUED)
                        .tag(LanesMicrometer.DISPATCHER_TAG, Lanes.COMMAND_DISPATCHER)
                        .gauges())
                .isNotEmpty();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> assertThat(registry.find(LanesMicrometer.HANDLE).timers())
                                .isNotEmpty());
    }

    private String openedWith(long balance) {
        String id = account();
        http.command(id, "OpenAccount", "PROCESSED", "{\"owner\":\"" + id + "\"}");
        if (balance > 0) {
            http.command(id, "Deposit", "PROCESSED", "{\"amount\":" + balance + "}");
        }
        return id;
    }

    private static String account() {
        return "acc-" + UUID.randomUUID();
    }
}
