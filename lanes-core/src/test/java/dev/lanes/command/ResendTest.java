package dev.lanes.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.eventsourcing.RequestOutcome;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.modeling.CommandRejectedException;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * A resend of a request id the store holds (a sender that retried after a timeout, a client that sent twice) is sent
 * and decided again, against a state that already holds what the first send did: whatever that decision is (events the
 * store's request id key refuses, a failure of the handler's own checks, a rule's refusal, nothing at all), the sender
 * is answered with what the first send stored, and nothing more is stored.
 */
class ResendTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final NamedAggregate ACCOUNT = NamedAggregate.of("bank", "account");

    record Deposit(long amount) {}

    record Withdraw(long amount) {}

    record Close() {}

    record Open() {}

    record Deposited(long amount) {}

    record Withdrawn(long amount) {}

    record Closed() {}

    record Opened() {}

    /** The account: its balance, and whether it is opened and closed. */
    record Account(long balance, boolean opened, boolean closed) {}

    private final AtomicInteger decisions = new AtomicInteger();
    /** The versions the projection was handed, in order: a stream published twice shows twice. */
    private final List<Integer> projected = new CopyOnWriteArrayList<>();

    private final EventStore store = EventStores.inMemory();
    private final Lanes lanes = Lanes.builder()
            .aggregate(AggregateDefinition.<Account>builder(ACCOUNT, id -> new Account(0, false, false))
                    .handle(Deposit.class, (account, deposit) -> {
                        decisions.incrementAndGet();
                        return List.of(new Deposited(deposit.amount()));
                    })
                    .handle(Withdraw.class, (account, withdraw) -> {
                        decisions.incrementAndGet();
                        if (account.balance() < withdraw.amount()) {
                            throw new CommandRejectedException(
                                    "insufficient funds: " + account.balance() + " < " + withdraw.amount());
                        }
                        return List.of(new Withdrawn(withdraw.amount()));
                    })
                    .handle(Close.class, (account, close) -> {
                        decisions.incrementAndGet();
                        return account.closed() ? List.of() : List.of(new Closed());
                    })
                    .handle(Open.class, (account, open) -> {
                        decisions.incrementAndGet();
                        if (account.opened()) {
                            throw new IllegalStateException("already open"); // a handler's check, not a rule
                        }
                        return List.of(new Opened());
                    })
                    .apply(
                            Deposited.class,
                            (account, deposited) -> new Account(
                                    account.balance() + deposited.amount(), account.opened(), account.closed()))
                    .apply(
                            Withdrawn.class,
                            (account, withdrawn) -> new Account(
                                    account.balance() - withdrawn.amount(), account.opened(), account.closed()))
                    .apply(Closed.class, (account, closed) -> new Account(account.balance(), account.opened(), true))
                    .apply(Opened.class, (account, opened) -> new Account(account.balance(), true, account.closed()))
                    .build())
            .processor(EventProcessor.builder("Versions", ProcessorKind.PROJECTION)
                    .on(
                            ACCOUNT,
                            Object.class,
                            (event, context) -> Mono.fromRunnable(
                                    () -> projected.add(context.stream().version())))
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
    void aResendIsDecidedAgainAndAnsweredWithWhatItsRequestIdStoredWhichTheStoreKeepsAlone() {
        CommandResult first = send(new Deposit(5), "deposit-1");

        CommandResult again = send(new Deposit(5), "deposit-1");

        assertThat(decisions).as("the resend is decided again").hasValue(2);
        assertThat(again).isEqualTo(first);
        assertThat(again.commandId()).as("the command that stored it").isEqualTo(first.commandId());
        assertThat(store.load(account, 1).collectList().block(TIMEOUT)).hasSize(1);
    }

    @Test
    void theSameMessageSentAgainAfterItsAnswerIsNotPublishedAgain() {
        CommandMessage deposit = CommandMessage.of(account, new Deposit(5), "deposit-1");
        lanes.gateway().send(deposit, WaitStage.PROCESSED).block(TIMEOUT);
        lanes.gateway().send(deposit, WaitStage.PROCESSED).block(TIMEOUT);

        // the lane publishes in order: once the next command is projected, a second publication would have been too
        Objects.requireNonNull(lanes.gateway()
                .send(CommandMessage.of(account, new Deposit(1), "deposit-2"), WaitStage.PROJECTED)
                .block(TIMEOUT));

        assertThat(projected).containsExactly(1, 2);
    }

    @Test
    void aResendThatTheMovedOnStateRefusesIsAnsweredWithWhatItStoredAndNoRefusalIsRemembered() {
        send(new Deposit(100), "deposit-1");
        CommandResult withdrawn = send(new Withdraw(100), "withdraw-1");

        CommandResult again = send(new Withdraw(100), "withdraw-1");

        assertThat(again).isEqualTo(withdrawn);
        RequestOutcome outcome = store.findRequest(account, "withdraw-1").block(TIMEOUT);
        assertThat(outcome).isNotNull();
        assertThat(outcome.refusal()).isNull();
        assertThat(outcome.stream()).isNotNull();
        assertThat(store.load(account, 1).collectList().block(TIMEOUT)).hasSize(2);
    }

    @Test
    void aResendWhoseHandlerNowFailsIsAnsweredWithWhatItStoredAndAnotherRequestGetsTheFailure() {
        CommandResult opened = send(new Open(), "open-1");

        CommandResult again = send(new Open(), "open-1");

        assertThat(again).isEqualTo(opened);
        assertThatThrownBy(() -> send(new Open(), "open-2"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("already open");
        assertThat(store.load(account, 1).collectList().block(TIMEOUT)).hasSize(1);
    }

    @Test
    void aResendThatTheMovedOnStateDecidesNothingForIsAnsweredWithWhatItStored() {
        send(new Deposit(1), "deposit-1");
        CommandResult closed = send(new Close(), "close-1");
        assertThat(closed.version()).isEqualTo(2);
        assertThat(closed.events()).containsExactly(new Closed());

        CommandResult again = send(new Close(), "close-1");

        assertThat(again).isEqualTo(closed);
        CommandResult another = send(new Close(), "close-2");
        assertThat(another.version()).as("a new request that changes nothing").isZero();
        assertThat(another.events()).isEmpty();
    }

    @Test
    void aResendWaitingForItsProjectionsIsAnsweredFromTheStoreAtProcessed() {
        CommandResult first = send(new Deposit(7), "deposit-1");

        CommandResult again = Objects.requireNonNull(lanes.gateway()
                .send(CommandMessage.of(account, new Deposit(7), "deposit-1"), WaitStage.PROJECTED)
                .block(TIMEOUT));

        assertThat(decisions).as("a PROJECTED send asks the store first").hasValue(1);
        assertThat(again).isEqualTo(first);
    }

    private CommandResult send(Object command, String requestId) {
        return Objects.requireNonNull(lanes.gateway()
                .send(CommandMessage.of(account, command, requestId), WaitStage.PROCESSED)
                .block(TIMEOUT));
    }
}
