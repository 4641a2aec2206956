package dev.lanes.spring.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.examples.bank.Bank;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.spring.sample.BankHttp.Answer;
import dev.lanes.testsupport.TestPostgres;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The same sample given a DataSource (Spring Boot's, over an embedded PostgreSQL): Lanes stores its events there. */
@SpringBootTest(classes = BankApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class BankApplicationPostgresTest {
    @LocalServerPort
    int port;

    @Autowired
    Lanes lanes;

    @DynamicPropertySource
    static void dataSource(DynamicPropertyRegistry registry) {
        String url = TestPostgres.emptyDatabase();
        registry.add("spring.datasource.url", () -> url);
        registry.add("spring.datasource.username", () -> TestPostgres.USER);
    }

    @Test
    void commandsSentOverHttpAreStoredInPostgres() {
        BankHttp http = new BankHttp(port);

        Answer opened = http.command("acc-pg", "OpenAccount", "PROCESSED", "{\"owner\":\"ada\"}");
        Answer deposit = http.command("acc-pg", "Deposit", "PROJECTED", "{\"amount\":70}");

        assertThat(opened.status()).as(opened.body()).isEqualTo(200);
        assertThat(deposit.<Integer>read("$.version")).isEqualTo(2);
        assertThat(lanes.eventStore()).isInstanceOf(PostgresEventStore.class);
        List<DomainEventStream> stored =
                lanes.eventStore().load(Bank.account("acc-pg"), 1).collectList().block();
        assertThat(stored).extracting(DomainEventStream::version).containsExactly(1, 2);
        // with PostgreSQL the projection replays the store (it survives a restart), so PROJECTED does not wait for it
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(http.get("/balances/acc-pg").<Integer>read("$.balance"))
                        .isEqualTo(70));
    }
}
