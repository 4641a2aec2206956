package dev.lanes.test.events;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountCommand.Withdraw;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.AccountEvent.Withdrawn;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.TransferSaga;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.runtime.ShutdownReport;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Backpressure between the command lanes, the event bus and the event processors has no cycle: a saga whose commands
 * need the command lanes never holds its own lane while they run, and publishing never holds a command lane behind a
 * full event processor.
 */
class FlowControlTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int ACCOUNTS = 20;
    private static final long OPENING = 1_000;

    @Test
    void transfersThroughATinyEventBusAndTightEventLanesAllSettleAndTheRuntimeStopsGracefully() {
        // the reproduction: an event bus of 8 per consumer group, event lanes of 4 (64 in all), 200 transfers
        BankApp bank = new BankApp(
                        EventStores.inMemory(),
                        8,
                        Duration.ofSeconds(30),
                        Duration.ofMillis(100),
                        List.of(),
                        lanes -> lanes.eventSettings(LaneSettings.DEFAULT.withBounds(4, 64)))
                .start();
        openAccounts(bank);

        Random random = new Random(12);
        Mono<Void> transfers = Flux.range(0, 200)
                .flatMap(
                        i -> {
                            String source = "f" + random.nextInt(ACCOUNTS);
                            String target = i % 13 == 0 ? "never-opened" : "f" + random.nextInt(ACCOUNTS);
                            return bank.gateway
                                    .send(
                                            Bank.account(source),
                                            new Withdraw(1 + i % 40, TransferSaga.debitReference("t" + i, target)),
                                            WaitStage.PROCESSED)
                                    .then()
                                    .onErrorResume(refused -> Mono.empty());
                        },
                        200)
                .then();
        StepVerifier.create(transfers)
                .as("every debit answered: no lane waits on a lane that waits on it")
                .expectComplete()
                .verify(TIMEOUT);

        ShutdownReport report = bank.runtime.shutdown().block(TIMEOUT);
        assertThat(report.graceful()).as(report.toString()).isTrue();
        assertEverySettledOnceAndMoneyConserved(bank);
        assertThat(bank.results.inFlight()).isZero();
    }

    private static void openAccounts(BankApp bank) {
        Flux.range(0, ACCOUNTS)
                .flatMap(i -> bank.gateway
                        .send(Bank.account("f" + i), new OpenAccount("o" + i), WaitStage.PROCESSED)
                        .then(bank.gateway.send(Bank.account("f" + i), new Deposit(OPENING), WaitStage.PROCESSED)))
                .blockLast(TIMEOUT);
    }

    /** Every stored transfer debit has exactly one credit or refund of its amount, and the total is unchanged. */
    static void assertEverySettledOnceAndMoneyConserved(BankApp bank) {
        Map<String, Long> debits = new HashMap<>();
        Map<String, Long> settlements = new HashMap<>();
        Map<String, Integer> settlementCounts = new HashMap<>();
        long total = 0;
        for (int i = 0; i < ACCOUNTS; i++) {
            List<DomainEventStream> streams =
                    bank.store.load(Bank.account("f" + i), 1).collectList().block(TIMEOUT);
            for (DomainEventStream stream : streams) {
                for (Object event : stream.payloads()) {
                    if (event instanceof Withdrawn withdrawn) {
                        total -= withdrawn.amount();
                        if (withdrawn.reference().startsWith("transfer:")) {
                            debits.put(withdrawn.reference().split(":")[1], withdrawn.amount());
                        }
                    } else if (event instanceof Deposited deposited) {
                        total += deposited.amount();
                        String reference = deposited.reference();
                        if (reference.startsWith("credit:") || reference.startsWith("refund:")) {
                            String transfer = reference.substring(reference.indexOf(':') + 1);
                            settlements.merge(transfer, deposited.amount(), Long::sum);
                            settlementCounts.merge(transfer, 1, Integer::sum);
                        }
                    }
                }
            }
        }
        assertThat(debits).as("some transfers were debited").isNotEmpty();
        assertThat(settlements)
                .as("each debit credited or refunded, with its amount")
                .isEqualTo(debits);
        assertThat(settlementCounts.values()).as("settled once each").containsOnly(1);
        assertThat(total).as("money conserved").isEqualTo(ACCOUNTS * OPENING);
    }
}
