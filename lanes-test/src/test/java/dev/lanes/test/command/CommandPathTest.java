package dev.lanes.test.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountCommand.Withdraw;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.BankNode;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/** The gateway to the store and back, on one instance: concurrent creates and changes, gapless versions. */
class CommandPathTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final EventStore store = EventStores.inMemory();
    private final BankNode bank = new BankNode("Bank", store).start();

    @AfterEach
    void close() {
        bank.close();
    }

    @Test
    void concurrentCreatesThenTenThousandConcurrentChangesAllSucceedWithGaplessVersions() {
        int accounts = 200;
        List<CommandResult> created = Flux.range(0, accounts)
                .flatMap(
                        i -> bank.gateway()
                                .send(Bank.account("acc-" + i), new OpenAccount("owner-" + i), WaitStage.PROCESSED),
                        200)
                .collectList()
                .block(TIMEOUT);
        assertThat(created).hasSize(accounts).allMatch(r -> r.version() == 1 && r.stage() == WaitStage.PROCESSED);

        Random random = new Random(7);
        List<AggregateId> targets = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            targets.add(Bank.account("acc-" + random.nextInt(accounts)));
        }
        List<CommandResult> changed = Flux.fromIterable(targets)
                .flatMap(id -> bank.gateway().send(id, new Deposit(10), WaitStage.PROCESSED), 512)
                .collectList()
                .block(TIMEOUT);

        assertThat(changed).hasSize(10_000);
        long total = 0;
        for (int i = 0; i < accounts; i++) {
            AggregateId id = Bank.account("acc-" + i);
            List<DomainEventStream> streams = store.load(id, 1).collectList().block(TIMEOUT);
            for (int v = 0; v < streams.size(); v++) {
                assertThat(streams.get(v).version()).as("%s stream %d", id, v).isEqualTo(v + 1);
            }
            total += streams.size() - 1;
        }
        assertThat(total).isEqualTo(10_000);
        assertThat(bank.stats().retried())
                .as("no version conflict on one instance")
                .isZero();
        assertThat(bank.stats().parked()).isZero();
        assertThat(bank.results().inFlight()).isZero();
    }

    @Test
    void theResultCarriesTheNewVersionAndEventsAndSentCompletesBeforeProcessing() {
        AggregateId id = Bank.account("acc-x");
        CommandResult sent =
                bank.gateway().send(id, new OpenAccount("ann"), WaitStage.SENT).block(TIMEOUT);
        assertThat(sent.stage()).isIn(WaitStage.SENT, WaitStage.PROCESSED);

        CommandResult deposit =
                bank.gateway().send(id, new Deposit(25), WaitStage.PROCESSED).block(TIMEOUT);
        assertThat(deposit.version()).isEqualTo(2);
        assertThat(deposit.events()).containsExactly(new dev.lanes.examples.bank.AccountEvent.Deposited(25, ""));

        CommandResult withdraw =
                bank.gateway().send(id, new Withdraw(5), WaitStage.PROCESSED).block(TIMEOUT);
        assertThat(withdraw.version()).isEqualTo(3);
    }
}
