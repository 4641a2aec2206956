package dev.lanes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.testsupport.TestPostgres;
import org.junit.jupiter.api.Test;

/** {@code lanes demo --scenario orders}: the order-fulfilment process under concurrent clients passes its audit. */
class OrdersDemoTest {

    @Test
    void inMemoryEveryOrderEndsOnceNoDeadlineTwiceAndStockIsConserved() {
        Cli.Result result = Cli.run(
                "demo", "--scenario", "orders", "--orders", "120", "--clients", "16", "--payment-timeout", "500ms");

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        assertThat(result.out())
                .contains("Lanes demo: order fulfilment")
                .contains("PASS  every order shipped or cancelled, never both")
                .contains("PASS  no deadline handled twice, none left")
                .contains("PASS  stock conserved")
                .contains("PASS  only paid orders shipped")
                .contains("Result        PASS");
        assertThat(result.out())
                .as("some orders shipped, some cancelled, some by their deadline")
                .containsPattern("Ended         shipped [1-9][0-9]*, cancelled [1-9]")
                .containsPattern("Deadlines     handled [1-9]");
    }

    @Test
    void onPostgresTheDeadlinesAreKeptInTheDatabaseAndTheAuditPasses() {
        Cli.Result result = Cli.run(
                "demo",
                "--scenario",
                "orders",
                "--store",
                "postgres",
                "--jdbc-url",
                TestPostgres.emptyDatabase(),
                "--orders",
                "40",
                "--clients",
                "8",
                "--payment-timeout",
                "500ms");

        assertThat(result.exitCode()).as(result.out() + result.err()).isZero();
        assertThat(result.out()).contains("on PostgreSQL event store").contains("Result        PASS");
    }

    @Test
    void anUnknownScenarioIsRefusedNamingTheChoices() {
        Cli.Result result = Cli.run("demo", "--scenario", "shop");

        assertThat(result.exitCode()).isNotZero();
        assertThat(result.err()).contains("'shop' (bank or orders)");
    }
}
