package dev.lanes.examples.bank;

import java.util.Objects;

/** What an account can be asked to do. */
public sealed interface AccountCommand {

    /** Opens a new account. */
    record OpenAccount(String owner) implements AccountCommand {}

    /** Adds money; {@code reference} ties it to a transfer or is empty (also when it is null: absent from JSON). */
    record Deposit(long amount, String reference) implements AccountCommand {
        public Deposit {
            reference = Objects.requireNonNullElse(reference, "");
        }

        public Deposit(long amount) {
            this(amount, "");
        }
    }

    /** Takes money out, if the balance allows; a null {@code reference} is empty. */
    record Withdraw(long amount, String reference) implements AccountCommand {
        public Withdraw {
            reference = Objects.requireNonNullElse(reference, "");
        }

        public Withdraw(long amount) {
            this(amount, "");
        }
    }

    /** Closes an account whose balance is zero. */
    record CloseAccount() implements AccountCommand {}
}
