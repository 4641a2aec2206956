package dev.lanes.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.modeling.CommandRejectedException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A request id whose command a rule refused keeps that answer: a resend is answered with the refusal, not decided again
 * against a state that moved on (a withdrawal refused for lack of funds must not go through when the same request is
 * retried after a deposit). A failure that is not a decision (a handler's bug) keeps the request id free.
 */
class RefusalMemoryTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final NamedAggregate ACCOUNT = NamedAggregate.of("bank", "account");

    record Deposit(long amount) {}

    record Withdraw(long amount) {}

    record Deposited(long amount) {}

    record Withdrawn(long amount) {}

    private final AtomicBoolean handlerBroken = new AtomicBoolean();
    private final EventStore store = EventStores.inMemory();
    private final Lanes lanes = Lanes.builder()
            .aggregate(AggregateDefinition.<Long>builder(ACCOUNT, id -> 0L)
                    .handle(Deposit.class, (balance, deposit) -> List.of(new Deposited(deposit.amount())))
                    .handle(Withdraw.class, (balance, withdraw) -> {
                        if (handlerBroken.get()) {
                            throw new IllegalStateException("handler bug");
                        }
                        if (balance < withdraw.amount()) {
                            throw new CommandRejectedException(
                                    "insufficient funds: " + balance + " < " + withdraw.amount());
                        }
                        return List.of(new Withdrawn(withdraw.amount()));
                    })
                    .apply(Deposited.class, (balance, deposited) -> balance + deposited.amount())
                    .apply(Withdrawn.class, (balance, withdrawn) -> balance - withdrawn.amount())
                    .build())
            .eventStore(store)
            .build()
            .start();
    private final AggregateId account =
            AggregateId.of(ACCOUNT, UUID.randomUUID().toString());

    @AfterEach
    void stop() {
        lanes.stop();
    }

    @Test
    void aRefusedRequestIdIsAnsweredWithItsRefusalAfterTheStateMovedOn() {
        assertThatThrownBy(() -> send(new Withdraw(50), "withdraw-1"))
                .isInstanceOf(CommandRejectedException.class)
                .isNotInstanceOf(CommandRejectedEarlierException.class)
                .hasMessageContaining("insufficient funds: 0 < 50");
        send(new Deposit(100), "deposit-1");

        assertThatThrownBy(() -> send(new Withdraw(50), "withdraw-1"))
                .isInstanceOfSatisfying(CommandRejectedEarlierException.class, earlier -> {
                    assertThat(earlier.refusal().requestId()).isEqualTo("withdraw-1");
                    assertThat(earlier.refusal().errorType()).isEqualTo(CommandRejectedException.class.getName());
                    assertThat(earlier.refusal().reason()).isEqualTo("insufficient funds: 0 < 50");
                })
                .hasMessageContaining("Request id 'withdraw-1' on " + account)
                .hasMessageContaining("insufficient funds: 0 < 50")
                .hasMessageContaining("new request id");
        assertThat(balance()).as("the resend was not decided again").isEqualTo(100);

        assertThat(send(new Withdraw(50), "withdraw-2").version())
                .as("a new request id is decided")
                .isEqualTo(2);
        assertThat(balance()).isEqualTo(50);
    }

    @Test
    void aRefusedRequestIdResentWithAnotherCommandIsRefusedAsReused() {
        CommandMessage refused = CommandMessage.of(account, new Withdraw(50), "withdraw-1")
                .withHeader(CommandMessage.HASH_HEADER, "hash-a");
        assertThatThrownBy(
                        () -> lanes.gateway().send(refused, WaitStage.PROCESSED).block(TIMEOUT))
                .isInstanceOf(CommandRejectedException.class);

        CommandMessage other = CommandMessage.of(account, new Withdraw(5), "withdraw-1")
                .withHeader(CommandMessage.HASH_HEADER, "hash-b");
        assertThatThrownBy(
                        () -> lanes.gateway().send(other, WaitStage.PROCESSED).block(TIMEOUT))
                .isInstanceOfSatisfying(RequestIdReusedException.class, reused -> {
                    assertThat(reused.storedHash()).isEqualTo("hash-a");
                    assertThat(reused.sentHash()).isEqualTo("hash-b");
                });
    }

    @Test
    void aHandlerFailureThatIsNotARuleKeepsTheRequestIdFree() {
        send(new Deposit(100), "deposit-1");
        handlerBroken.set(true);
        assertThatThrownBy(() -> send(new Withdraw(50), "withdraw-1"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("handler bug");

        handlerBroken.set(false);
        assertThat(send(new Withdraw(50), "withdraw-1").version()).isEqualTo(2);
        assertThat(balance()).isEqualTo(50);
    }

    private CommandResult send(Object command, String requestId) {
        return Objects.requireNonNull(lanes.gateway()
                .send(CommandMessage.of(account, command, requestId), WaitStage.PROCESSED)
                .block(TIMEOUT));
    }

    private long balance() {
        return Objects.requireNonNull(store.load(account, 1)
                .flatMapIterable(stream -> stream.payloads())
                .reduce(
                        0L,
                        (balance, event) -> event instanceof Deposited deposited
                                ? balance + deposited.amount()
                                : balance - ((Withdrawn) event).amount())
                .block(TIMEOUT));
    }
}
