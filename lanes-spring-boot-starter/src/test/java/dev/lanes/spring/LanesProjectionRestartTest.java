package dev.lanes.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.command.CommandGateway;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountCommand.Withdraw;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.processing.EventProcessor;
import dev.lanes.testsupport.TestPostgres;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The bank's in-memory balance projection, a plain bean, across a restart of the application on the same PostgreSQL:
 * the second context's projection equals a replay of the store, not the deltas since its start.
 */
class LanesProjectionRestartTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        DataSourceAutoConfiguration.class,
        LanesAutoConfiguration.class,
        LanesHealthAutoConfiguration.class
    })
    @Import(BankBeans.class)
    static class Application {}

    @Test
    void aProjectionBeanSurvivesAContextRestartAndEqualsAReplayOfTheStore() {
        String url = TestPostgres.emptyDatabase();
        try (ConfigurableApplicationContext first = start(url)) {
            CommandGateway gateway = first.getBean(CommandGateway.class);
            for (String id : new String[] {"r-1", "r-2"}) {
                gateway.send(Bank.account(id), new OpenAccount(id), WaitStage.PROCESSED)
                        .block(WAIT);
                gateway.send(Bank.account(id), new Deposit(100), WaitStage.PROCESSED)
                        .block(WAIT);
            }
            gateway.send(Bank.account("r-1"), new Withdraw(30), WaitStage.PROCESSED)
                    .block(WAIT);
            awaitUpAndEqualToReplay(first);
        }

        try (ConfigurableApplicationContext second = start(url)) {
            awaitUpAndEqualToReplay(second);
            assertThat(second.getBean(BalanceProjection.class).rows())
                    .hasSize(2)
                    .hasEntrySatisfying("r-1", row -> assertThat(row.balance()).isEqualTo(70));

            second.getBean(CommandGateway.class)
                    .send(Bank.account("r-2"), new Withdraw(40), WaitStage.PROCESSED)
                    .block(WAIT);

            awaitUpAndEqualToReplay(second);
            assertThat(second.getBean(BalanceProjection.class).rows().get("r-2").balance())
                    .isEqualTo(60);
        }
    }

    private static void awaitUpAndEqualToReplay(ConfigurableApplicationContext context) {
        LanesHealthIndicator health = context.getBean(LanesHealthIndicator.class);
        await().atMost(WAIT).until(() -> health.health().getStatus().equals(Status.UP));
        BalanceProjection projection = context.getBean(BalanceProjection.class);
        await().atMost(WAIT)
                .untilAsserted(
                        () -> assertThat(projection.rows()).isEqualTo(replay(context.getBean(EventStore.class))));
    }

    /** The projection a fresh processor builds from every stream in the store, in position order. */
    private static Map<String, BalanceProjection.Row> replay(EventStore store) {
        BalanceProjection replayed = new BalanceProjection();
        EventProcessor processor = replayed.processor();
        store.readAll(0, 100_000)
                .concatMap(positioned -> processor.handle(positioned.stream()))
                .blockLast(WAIT);
        return replayed.rows();
    }

    private static ConfigurableApplicationContext start(String url) {
        return new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .properties(
                        "spring.datasource.url=" + url,
                        "spring.datasource.username=" + TestPostgres.USER,
                        "lanes.shutdown-timeout=10s")
                .run();
    }
}
