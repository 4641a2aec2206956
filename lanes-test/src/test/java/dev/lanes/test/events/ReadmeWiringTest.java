package dev.lanes.test.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.eventsourcing.SnapshotStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.TransferSaga;
import dev.lanes.processing.Snapshotter;
import dev.lanes.runtime.LanesRuntime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The wiring snippet of README.md ("A service in a few lines") and docs/getting-started.md, compiled and run as written there. */
class ReadmeWiringTest {

    @Test
    void theReadmesWiringRunsTheBankAndStopsGracefully() {
        Lanes stopped;
        // --- README snippet: from here
        EventStore store = EventStores.inMemory(); // or PostgresEventStore.connect(...) from lanes-postgres
        SnapshotStore snapshots = SnapshotStores.inMemory();
        BalanceProjection balances = new BalanceProjection();
        try (Lanes lanes = Lanes.builder()
                .aggregate(Bank.definition())
                .eventStore(store)
                .snapshotStore(snapshots)
                .processor(balances.processor()) // a projection
                .processor(TransferSaga::processor) // a saga: it is given the gateway
                .processor(Snapshotter.processor("Snapshotter", Bank.definition(), store, snapshots, 100))
                .build()
                .start()) {
            CommandGateway gateway = lanes.gateway();
            gateway.send(Bank.account("acc-1"), new OpenAccount("ada"), WaitStage.PROCESSED)
                    .block();
            CommandResult deposited = gateway.send(Bank.account("acc-1"), new Deposit(100), WaitStage.PROJECTED)
                    .block(); // read your writes
            // --- README snippet: to here (and the closing brace); the assertions are the test's
            assertThat(deposited.stage()).isEqualTo(WaitStage.PROJECTED);
            assertThat(deposited.version()).isEqualTo(2);
            assertThat(balances.rows().get("acc-1").balance()).isEqualTo(100);
            stopped = lanes;
        } // close(): a graceful stop

        assertThat(stopped.runtime().state()).isEqualTo(LanesRuntime.State.STOPPED);
        assertThat(stopped.runtime().shutdown().block(Duration.ofSeconds(30)).graceful())
                .isTrue();
    }
}
