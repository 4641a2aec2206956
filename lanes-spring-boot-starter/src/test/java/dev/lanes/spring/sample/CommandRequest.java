package dev.lanes.spring.sample;

import dev.lanes.examples.bank.AccountCommand;
import dev.lanes.examples.bank.TransferSaga;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The JSON body of {@code POST /commands/account/{id}}: {@code {"type": "Deposit", "amount": 100}}; {@code type} is
 * {@code OpenAccount} (with {@code owner}), {@code Deposit}, {@code Withdraw}, {@code Transfer} (with {@code amount}
 * and {@code to}: a withdrawal the transfer saga credits to that account) or {@code CloseAccount}.
 */
record CommandRequest(
        String type,
        @Nullable String owner,
        @Nullable Long amount,
        @Nullable String to) {

    /**
     * The bank command it asks for.
     *
     * @throws IllegalArgumentException naming the type or the field it lacks
     */
    AccountCommand toCommand() {
        return switch (type) {
            case "OpenAccount" -> new AccountCommand.OpenAccount(required("owner", owner));
            case "Deposit" -> new AccountCommand.Deposit(required("amount", amount));
            case "Withdraw" -> new AccountCommand.Withdraw(required("amount", amount));
            case "Transfer" ->
                new AccountCommand.Withdraw(
                        required("amount", amount),
                        TransferSaga.debitReference(UUID.randomUUID().toString(), required("to", to)));
            case "CloseAccount" -> new AccountCommand.CloseAccount();
            default ->
                throw new IllegalArgumentException("unknown command type '" + type
                        + "': OpenAccount, Deposit, Withdraw, Transfer or CloseAccount");
        };
    }

    private <T> T required(String field, @Nullable T value) {
        if (value == null) {
            throw new IllegalArgumentException(type + " needs '" + field + "'");
        }
        return value;
    }
}
