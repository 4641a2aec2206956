package dev.lanes.examples.bank;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.examples.bank.AccountCommand.CloseAccount;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountCommand.Withdraw;
import dev.lanes.examples.bank.AccountEvent.AccountClosed;
import dev.lanes.examples.bank.AccountEvent.AccountOpened;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.AccountEvent.Withdrawn;
import dev.lanes.modeling.AggregateDefinition;
import java.util.List;

/** The bank domain: the account aggregate as a decider. */
public final class Bank {
    /** The account aggregate type, {@code bank.account}. */
    public static final NamedAggregate ACCOUNT = NamedAggregate.of("bank", "account");

    private Bank() {}

    public static AggregateId account(String id) {
        return AggregateId.of(ACCOUNT, id);
    }

    /** Opening, deposits, withdrawals (never below zero) and closing (only at zero). */
    public static AggregateDefinition<Account> definition() {
        return AggregateDefinition.<Account>builder(ACCOUNT, id -> Account.NEW)
                .handle(OpenAccount.class, Bank::open)
                .handle(Deposit.class, Bank::deposit)
                .handle(Withdraw.class, Bank::withdraw)
                .handle(CloseAccount.class, Bank::close)
                .apply(AccountOpened.class, (account, e) -> new Account(e.owner(), 0, true, false))
                .apply(Deposited.class, (account, e) -> withBalance(account, account.balance() + e.amount()))
                .apply(Withdrawn.class, (account, e) -> withBalance(account, account.balance() - e.amount()))
                .apply(AccountClosed.class, (account, e) -> new Account(account.owner(), 0, false, true))
                .build();
    }

    private static List<AccountEvent> open(Account account, OpenAccount command) {
        if (account.open() || account.closed()) {
            throw new BankRuleViolation("account of " + account.owner() + " is already opened");
        }
        return List.of(new AccountOpened(command.owner()));
    }

    private static List<AccountEvent> deposit(Account account, Deposit command) {
        requireOpen(account);
        requirePositive(command.amount());
        return List.of(new Deposited(command.amount(), command.reference()));
    }

    private static List<AccountEvent> withdraw(Account account, Withdraw command) {
        requireOpen(account);
        requirePositive(command.amount());
        if (account.balance() < command.amount()) {
            throw new BankRuleViolation(
                    "insufficient funds: balance " + account.balance() + ", withdrawal " + command.amount());
        }
        return List.of(new Withdrawn(command.amount(), command.reference()));
    }

    private static List<AccountEvent> close(Account account, CloseAccount command) {
        requireOpen(account);
        if (account.balance() != 0) {
            throw new BankRuleViolation("cannot close an account holding " + account.balance());
        }
        return List.of(new AccountClosed());
    }

    private static void requireOpen(Account account) {
        if (!account.open()) {
            throw new BankRuleViolation(account.closed() ? "account is closed" : "account is not opened");
        }
    }

    private static void requirePositive(long amount) {
        if (amount <= 0) {
            throw new BankRuleViolation("amount must be positive: " + amount);
        }
    }

    private static Account withBalance(Account account, long balance) {
        return new Account(account.owner(), balance, account.open(), account.closed());
    }
}
