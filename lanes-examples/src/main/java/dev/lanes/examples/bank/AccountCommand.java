package dev.lanes.examples.bank;

/** What an account can be asked to do. */
public sealed interface AccountCommand {

    /** Opens a new account. */
    record OpenAccount(String owner) implements AccountCommand {}

    /** Adds money; {@code reference} ties it to a transfer or is empty. */
    record Deposit(long amount, String reference) implements AccountCommand {
        public Deposit(long amount) {
            this(amount, "");
        }
    }

    /** Takes money out, if the balance allows. */
    record Withdraw(long amount, String reference) implements AccountCommand {
        public Withdraw(long amount) {
            this(amount, "");
        }
    }

    /** Closes an account whose balance is zero. */
    record CloseAccount() implements AccountCommand {}
}
