package dev.lanes.examples.bank;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.examples.bank.AccountCommand.CloseAccount;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountCommand.Withdraw;
import dev.lanes.examples.bank.AccountEvent.AccountClosed;
import dev.lanes.examples.bank.AccountEvent.AccountOpened;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.AccountEvent.Withdrawn;
import dev.lanes.test.fixture.AggregateFixture;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The account's rules, decided on a history of events. */
class BankTest {
    private final AggregateFixture<Account> account = AggregateFixture.of(Bank.definition());
    private final AggregateFixture<Account> opened = account.given(new AccountOpened("Ann"));

    @Nested
    class Opening {

        @Test
        void opensANewAccountEmpty() {
            account.when(new OpenAccount("Ann"))
                    .expectEvents(new AccountOpened("Ann"))
                    .expectState(new Account("Ann", 0, true, false));
        }

        @Test
        void refusesToOpenAnAccountTwice() {
            opened.when(new OpenAccount("Bob"))
                    .expectError(BankRuleViolation.class, "already opened")
                    .expectState(new Account("Ann", 0, true, false));
        }

        @Test
        void refusesToOpenAClosedAccountAgain() {
            opened.given(new AccountClosed()).when(new OpenAccount("Ann")).expectError(BankRuleViolation.class);
        }
    }

    @Nested
    class Money {

        @Test
        void depositsAddToTheBalanceWithTheirReference() {
            opened.given(new Deposited(100, ""))
                    .when(new Deposit(50, "credit:t1"))
                    .expectEvents(new Deposited(50, "credit:t1"))
                    .expectState(account -> assertThat(account.balance()).isEqualTo(150));
        }

        @Test
        void withdrawalsTakeFromTheBalance() {
            opened.given(new Deposited(100, ""))
                    .when(new Withdraw(30))
                    .expectEvents(new Withdrawn(30, ""))
                    .expectState(new Account("Ann", 70, true, false));
        }

        @Test
        void aWithdrawalOfTheWholeBalanceLeavesZero() {
            opened.given(new Deposited(40, ""))
                    .when(new Withdraw(40))
                    .expectState(account -> assertThat(account.balance()).isZero());
        }

        @Test
        void refusesToWithdrawMoreThanTheBalance() {
            opened.given(new Deposited(100, ""), new Withdrawn(80, ""))
                    .when(new Withdraw(30))
                    .expectError(BankRuleViolation.class, "insufficient funds: balance 20, withdrawal 30")
                    .expectState(new Account("Ann", 20, true, false));
        }

        @Test
        void aWithdrawalExpectedToPassButRefusedIsReportedWithTheHistory() {
            // the failure message docs/guides/testing.md shows
            assertThatThrownBy(() -> opened.given(new Deposited(20, ""))
                            .when(new Withdraw(30))
                            .expectEvents(new Withdrawn(30, "")))
                    .hasMessage("""
                            Expecting bank.account/1 to emit:
                              1. Withdrawn[amount=30, reference=]
                            but the command failed with:
                              dev.lanes.examples.bank.BankRuleViolation: insufficient funds: balance 20, withdrawal 30
                            when:
                              Withdraw[amount=30, reference=]
                            given:
                              1. AccountOpened[owner=Ann]
                              2. Deposited[amount=20, reference=]""");
        }

        @Test
        void refusesAmountsThatAreNotPositive() {
            opened.when(new Deposit(0)).expectError(BankRuleViolation.class, "amount must be positive: 0");
            opened.when(new Withdraw(-5)).expectError(BankRuleViolation.class, "amount must be positive: -5");
        }

        @Test
        void refusesMoneyOnAnAccountNeverOpened() {
            account.when(new Deposit(10)).expectError(BankRuleViolation.class, "account is not opened");
        }

        @Test
        void refusesMoneyOnAClosedAccount() {
            opened.given(new AccountClosed())
                    .when(new Deposit(10, "credit:t1"))
                    .expectError(BankRuleViolation.class, "account is closed");
        }
    }

    @Nested
    class Closing {

        @Test
        void closesAnEmptyAccount() {
            opened.given(new Deposited(10, ""), new Withdrawn(10, ""))
                    .when(new CloseAccount())
                    .expectEvents(new AccountClosed())
                    .expectState(new Account("Ann", 0, false, true));
        }

        @Test
        void refusesToCloseAnAccountHoldingMoney() {
            opened.given(new Deposited(10, ""))
                    .when(new CloseAccount())
                    .expectError(BankRuleViolation.class, "cannot close an account holding 10");
        }
    }
}
