package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountCommand.Withdraw;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.BankNode;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.test.LostAcknowledgementStore;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A commit whose acknowledgement is lost on its way back from PostgreSQL: the lane's retry finds the request id in
 * the store and answers with what it stored, instead of deciding again (and refusing, or applying it twice).
 */
class AmbiguousCommitTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void aWithdrawalCommittedButNotAcknowledgedIsAnsweredWithItsStoredVersionAndStoredOnce() {
        LostAcknowledgementStore store = new LostAcknowledgementStore(
                TestDatabase.store(),
                () -> new PostgresUnavailableException(
                        "connection reset after commit", new SQLException("I/O error", "08006")));
        try (BankNode node = new BankNode("Ambiguous", store).start()) {
            AggregateId id = Bank.account("ack-" + UUID.randomUUID());
            node.gateway().send(id, new OpenAccount("ann"), WaitStage.PROCESSED).block(TIMEOUT);
            node.gateway().send(id, new Deposit(100), WaitStage.PROCESSED).block(TIMEOUT);
            store.loseNextAcknowledgement();

            CommandResult withdrawal = node.gateway()
                    .send(CommandMessage.of(id, new Withdraw(100), "withdraw-all"), WaitStage.PROCESSED)
                    .block(TIMEOUT);

            assertThat(withdrawal.version()).isEqualTo(3);
            assertThat(TestDatabase.store().load(id, 1).count().block(TIMEOUT)).isEqualTo(3);
            assertThat(TestDatabase.store()
                            .findByRequestId(id, "withdraw-all")
                            .map(DomainEventStream::version)
                            .block(TIMEOUT))
                    .isEqualTo(3);
            assertThat(node.stats().retried())
                    .as("the lost acknowledgement was retried")
                    .isEqualTo(1);
        }
    }
}
