package dev.lanes.test.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.event.DomainEventBus;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountCommand.Withdraw;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.BankNode;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.test.LostAcknowledgementStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * A commit whose acknowledgement is lost (the store committed, then the connection failed) is answered with what it
 * stored: the lane's retry asks the store for the request id before it decides again.
 */
class AmbiguousCommitTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void aWithdrawalWhoseCommitWasNotAcknowledgedIsAnsweredWithItsStoredResultNotRefusedOnRetry() {
        LostAcknowledgementStore store = new LostAcknowledgementStore(
                EventStores.inMemory(),
                () -> new UncheckedIOException(new IOException("connection reset after commit")));
        DomainEventBus eventBus = DomainEventBuses.inMemory(64);
        List<Integer> published = new CopyOnWriteArrayList<>();
        eventBus.receive("Audit", Bank.ACCOUNT).subscribe((MessageExchange<DomainEventStream> exchange) -> {
            published.add(exchange.message().version());
            exchange.acknowledge();
        });
        try (BankNode bank = new BankNode("Bank", store, 4096, eventBus, b -> b).start()) {
            AggregateId id = Bank.account("lost-ack");
            bank.gateway().send(id, new OpenAccount("ann"), WaitStage.PROCESSED).block(TIMEOUT);
            bank.gateway().send(id, new Deposit(100), WaitStage.PROCESSED).block(TIMEOUT);
            store.loseNextAcknowledgement();

            CommandResult withdrawal = bank.gateway()
                    .send(CommandMessage.of(id, new Withdraw(100), "withdraw-all"), WaitStage.PROCESSED)
                    .block(TIMEOUT);

            assertThat(withdrawal.version())
                    .as("the version the lost commit stored")
                    .isEqualTo(3);
            assertThat(store.load(id, 1).count().block(TIMEOUT))
                    .as("stored once")
                    .isEqualTo(3);
            org.awaitility.Awaitility.await().atMost(TIMEOUT).until(() -> published.size() == 3);
            assertThat(published)
                    .as("the lost commit's stream is published once")
                    .containsExactly(1, 2, 3);
            assertThat(bank.stats().retried()).isEqualTo(1);
        }
    }
}
