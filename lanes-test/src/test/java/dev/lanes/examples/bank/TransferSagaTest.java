package dev.lanes.examples.bank;

import static dev.lanes.test.fixture.SagaFixture.sent;

import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountEvent.AccountClosed;
import dev.lanes.examples.bank.AccountEvent.AccountOpened;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.AccountEvent.Withdrawn;
import dev.lanes.test.fixture.AggregateFixture;
import dev.lanes.test.fixture.SagaFixture;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/** The transfer saga: a debit becomes a credit of the target, a refused credit becomes a refund. */
class TransferSagaTest {
    private final SagaFixture transfers = SagaFixture.of(TransferSaga::processor);

    @Test
    void aTransferDebitIsCreditedToTheTarget() {
        transfers
                .given(Bank.account("a"), new AccountOpened("Ann"))
                .given(Bank.account("a"), new Deposited(100, ""))
                .when(Bank.account("a"), new Withdrawn(30, TransferSaga.debitReference("t1", "b")))
                .expectCommands(sent(Bank.account("b"), new Deposit(30, "credit:t1")));
    }

    @Test
    void aPlainWithdrawalSendsNothing() {
        transfers.when(Bank.account("a"), new Withdrawn(30, "")).expectNoCommands();
        transfers.when(Bank.account("a"), new Withdrawn(30, "atm:42")).expectNoCommands();
    }

    @Test
    void aCreditTheBankRefusesIsRefundedToTheSource() {
        Throwable closedTarget = AggregateFixture.of(Bank.definition())
                .given(new AccountOpened("Bob"), new AccountClosed())
                .when(new Deposit(30, "credit:t1"))
                .expectError(BankRuleViolation.class)
                .error();

        transfers
                .when(Bank.account("a"), new Withdrawn(30, TransferSaga.debitReference("t1", "b")))
                .whenReply(sent(Bank.account("b"), new Deposit(30, "credit:t1")), Objects.requireNonNull(closedTarget))
                .expectCommands(sent(Bank.account("a"), new Deposit(30, "refund:t1")));
    }

    @Test
    void aCreditThatSucceededNeedsNothingMore() {
        transfers
                .when(Bank.account("a"), new Withdrawn(30, TransferSaga.debitReference("t1", "b")))
                .whenReplySucceeded(
                        sent(Bank.account("b"), new Deposit(30, "credit:t1")), new Deposited(30, "credit:t1"))
                .expectNoCommands();
    }

    @Test
    void aCreditThatFailedOtherwiseFailsTheReplySoItIsRetriedThenParked() {
        transfers
                .when(Bank.account("a"), new Withdrawn(30, TransferSaga.debitReference("t1", "b")))
                .whenReply(
                        sent(Bank.account("b"), new Deposit(30, "credit:t1")),
                        new IllegalStateException("store unavailable"))
                .expectError(IllegalStateException.class);
    }
}
