package dev.lanes.examples.bank;

import dev.lanes.command.CommandGateway;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountEvent.Withdrawn;
import dev.lanes.modeling.CommandRejectedException;
import dev.lanes.processing.EventProcessor;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * Transfers money in two steps: the source is debited by a {@code Withdraw} whose reference is {@code
 * transfer:<transferId>:<targetAccount>}; on the {@code Withdrawn} event this saga records a credit of the target
 * ({@code credit:<transferId>}). When the credit is refused (the target is closed or was never opened: a {@link
 * CommandRejectedException}, such as a {@link BankRuleViolation}, also when the credit ran on another instance), the
 * reply records a refund of the source ({@code refund:<transferId>}). The saga never waits for a command in its lane. Money
 * is conserved once every saga step has run; a credit or refund that fails otherwise is parked, for an operator.
 */
public final class TransferSaga {
    /** The saga's consumer group. */
    public static final String NAME = "TransferSaga";

    private TransferSaga() {}

    /** The reference of the debit that starts a transfer. */
    public static String debitReference(String transferId, String targetAccount) {
        return "transfer:" + transferId + ":" + targetAccount;
    }

    public static EventProcessor processor(CommandGateway gateway) {
        return EventProcessor.saga(NAME, gateway)
                .on(Bank.ACCOUNT, Withdrawn.class, (withdrawn, saga) -> {
                    String[] parts = withdrawn.reference().split(":", 3);
                    if (parts.length == 3 && parts[0].equals("transfer")) {
                        saga.send(Bank.account(parts[2]), new Deposit(withdrawn.amount(), "credit:" + parts[1]));
                    }
                    return Mono.empty();
                })
                .onReply(Deposit.class, (reply, saga) -> {
                    Throwable error = reply.error();
                    if (error == null) {
                        return Mono.empty();
                    }
                    Deposit failed = reply.command();
                    if (error instanceof CommandRejectedException
                            && failed.reference().startsWith("credit:")) {
                        String transferId = failed.reference().substring("credit:".length());
                        saga.send(saga.event().aggregateId(), new Deposit(failed.amount(), "refund:" + transferId));
                        return Mono.empty();
                    }
                    return Mono.error(Objects.requireNonNull(error, "error")); // retried, then parked
                })
                .build();
    }
}
