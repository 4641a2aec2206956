package dev.lanes.test.bank;

import dev.lanes.command.CommandGateway;
import dev.lanes.processing.EventProcessor;
import dev.lanes.test.bank.AccountCommand.Deposit;
import dev.lanes.test.bank.AccountEvent.Withdrawn;
import reactor.core.publisher.Mono;

/**
 * Transfers money in two steps: the source is debited by a {@code Withdraw} whose reference is {@code
 * transfer:<transferId>:<targetAccount>}; on the {@code Withdrawn} event this saga credits the target. When the credit
 * is refused (the target is closed or was never opened), it refunds the source. Money is conserved once every saga
 * step has run.
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
                    if (parts.length != 3 || !parts[0].equals("transfer")) {
                        return Mono.empty();
                    }
                    String transferId = parts[1];
                    return saga.send(Bank.account(parts[2]), new Deposit(withdrawn.amount(), "credit:" + transferId))
                            .then()
                            .onErrorResume(
                                    BankRuleViolation.class,
                                    refused -> saga.send(
                                                    saga.event().aggregateId(),
                                                    new Deposit(withdrawn.amount(), "refund:" + transferId))
                                            .then());
                })
                .build();
    }
}
