package dev.lanes.test.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandBusOverloadedException;
import dev.lanes.command.CommandResult;
import dev.lanes.command.StageNotReachedException;
import dev.lanes.command.WaitStage;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountCommand.Withdraw;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.BankNode;
import dev.lanes.examples.bank.BankRuleViolation;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.test.ForwardingEventStore;
import dev.lanes.test.logging.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

class CommandFailureTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    @Test
    void aHandlersErrorReachesTheCallerWithItsTypeAndMessageAndTheAggregateIsUnchanged() {
        EventStore store = EventStores.inMemory();
        try (BankNode bank = new BankNode("Bank", store).start()) {
            AggregateId id = Bank.account("poor");
            bank.gateway().send(id, new OpenAccount("ann"), WaitStage.PROCESSED).block(TIMEOUT);
            bank.gateway().send(id, new Deposit(10), WaitStage.PROCESSED).block(TIMEOUT);

            assertThatThrownBy(() -> bank.gateway()
                            .send(id, new Withdraw(50), WaitStage.PROCESSED)
                            .block(TIMEOUT))
                    .isInstanceOf(BankRuleViolation.class)
                    .hasMessage("insufficient funds: balance 10, withdrawal 50");

            assertThat(store.load(id, 1).count().block(TIMEOUT)).isEqualTo(2);
            CommandResult next = bank.gateway()
                    .send(id, new Withdraw(10), WaitStage.PROCESSED)
                    .block(TIMEOUT);
            assertThat(next.version()).isEqualTo(3);
            assertThat(bank.stats().parked()).isZero();
        }
    }

    @Test
    void anEventStoreOutageIsRetriedInTheLaneAndTheCommandSucceedsOnceItRecovers() {
        FlakyStore store = new FlakyStore(EventStores.inMemory());
        try (BankNode bank = new BankNode("Bank", store).start()) {
            AggregateId id = Bank.account("flaky");
            bank.gateway().send(id, new OpenAccount("bob"), WaitStage.PROCESSED).block(TIMEOUT);
            store.failNextAppends.set(3);

            CommandResult result =
                    bank.gateway().send(id, new Deposit(5), WaitStage.PROCESSED).block(TIMEOUT);

            assertThat(result.version()).isEqualTo(2);
            assertThat(store.failNextAppends).hasValue(0);
            assertThat(bank.stats().retried()).isEqualTo(3);
            assertThat(store.load(id, 1).count().block(TIMEOUT)).isEqualTo(2);
        }
    }

    @Test
    void anOutageLongerThanTheRetriesParksTheCommandAndTheCallerLearnsItsStorageIsUnknownWithTheStoreError() {
        FlakyStore store = new FlakyStore(EventStores.inMemory());
        try (BankNode bank = new BankNode("Bank", store).start()) {
            AggregateId id = Bank.account("down");
            bank.gateway().send(id, new OpenAccount("cy"), WaitStage.PROCESSED).block(TIMEOUT);
            store.failNextAppends.set(100);

            // a failed append does not say whether it committed: the sender is not told "not stored"
            assertThatThrownBy(() -> bank.gateway()
                            .send(id, new Deposit(5), WaitStage.PROCESSED)
                            .block(TIMEOUT))
                    .isInstanceOfSatisfying(StageNotReachedException.class, unconfirmed -> {
                        assertThat(unconfirmed.reason()).isEqualTo(StageNotReachedException.Reason.APPEND_UNCONFIRMED);
                        assertThat(unconfirmed.storage()).isEqualTo(StageNotReachedException.Storage.UNKNOWN);
                    })
                    .hasRootCauseMessage("store unavailable");
            assertThat(bank.parkingLot().entries()).singleElement().satisfies(parked -> {
                assertThat(parked.aggregateId()).isEqualTo(id);
                assertThat(parked.attempts()).isEqualTo(11);
            });
            await().atMost(TIMEOUT)
                    .untilAsserted(() -> assertThat(logs.lines(Level.WARN))
                            .singleElement()
                            .satisfies(line -> assertThat(line.message())
                                    .isEqualTo("Parked a message for " + id + " from Bank after 11 attempt(s): "
                                            + "java.io.UncheckedIOException: java.io.IOException: store unavailable")));
            store.failNextAppends.set(0);
            assertThat(bank.gateway()
                            .send(id, new Deposit(7), WaitStage.PROCESSED)
                            .block(TIMEOUT)
                            .version())
                    .isEqualTo(2);
        }
    }

    @Test
    void aRequestIdAlreadyStoredOrInFlightIsAnsweredWithWhatItStoredAndAppliedOnce() {
        EventStore store = EventStores.inMemory();
        try (BankNode bank = new BankNode("Bank", store).start()) {
            AggregateId id = Bank.account("dup");
            bank.gateway().send(id, new OpenAccount("di"), WaitStage.PROCESSED).block(TIMEOUT);
            CommandMessage deposit = CommandMessage.of(id, new Deposit(3), "request-1");
            CommandResult first =
                    bank.gateway().send(deposit, WaitStage.PROCESSED).block(TIMEOUT);

            CommandResult again = bank.gateway()
                    .send(CommandMessage.of(id, new Deposit(3), "request-1"), WaitStage.PROCESSED)
                    .block(TIMEOUT);
            assertThat(again.version()).isEqualTo(first.version()).isEqualTo(2);
            assertThat(again.commandId()).as("the command that stored it").isEqualTo(deposit.messageId());

            List<CommandResult> concurrent = Flux.range(0, 20)
                    .flatMap(i -> bank.gateway()
                            .send(CommandMessage.of(id, new Deposit(1), "request-2"), WaitStage.PROCESSED))
                    .collectList()
                    .block(TIMEOUT);
            assertThat(concurrent)
                    .hasSize(20)
                    .extracting(CommandResult::version)
                    .containsOnly(3);
            assertThat(store.load(id, 1).count().block(TIMEOUT)).isEqualTo(3);
            assertThat(bank.results().inFlight()).isZero();
        }
    }

    @Test
    void aFullCommandBusFailsFastAndNothingIsHalfDone() {
        EventStore store = EventStores.inMemory();
        BankNode bank = new BankNode("Bank", store, 8, DomainEventBuses.inMemory(16), builder -> builder);
        // prepared, not started: the dispatcher takes nothing, and holds one command in hand-over from the bus
        bank.dispatcher()
                .prepare(dev.lanes.lifecycle.RuntimeContext.standalone())
                .block(TIMEOUT);
        AggregateId id = Bank.account("busy");
        for (int i = 0; i < 8 + 1; i++) {
            bank.gateway().send(id, new Deposit(1), WaitStage.SENT).subscribe(result -> {}, error -> {});
        }

        CommandMessage overflow = CommandMessage.of(id, new OpenAccount("late"), "overflow-1");
        assertThatThrownBy(() -> bank.gateway().send(overflow, WaitStage.SENT).block(TIMEOUT))
                .isInstanceOf(CommandBusOverloadedException.class)
                .hasMessageContaining("is full for bank.account: 8 commands wait");
        assertThat(bank.results().inFlight()).isEqualTo(9);

        bank.dispatcher().forceStop();
        assertThat(store.load(id, 1).hasElements().block(TIMEOUT))
                .as("every command was for one aggregate: nothing stored")
                .isFalse();
        org.awaitility.Awaitility.await()
                .atMost(TIMEOUT)
                .untilAsserted(() -> assertThat(bank.results().inFlight())
                        .as("commands the stopped dispatcher never took are answered")
                        .isZero());
    }

    /** An event store that fails a given number of appends, as an outage would. */
    static final class FlakyStore extends ForwardingEventStore {
        final AtomicInteger failNextAppends = new AtomicInteger();

        FlakyStore(EventStore delegate) {
            super(delegate);
        }

        @Override
        public Mono<Void> append(DomainEventStream stream) {
            return Mono.defer(() -> failNextAppends.getAndUpdate(n -> Math.max(0, n - 1)) > 0
                    ? Mono.error(new java.io.UncheckedIOException(new java.io.IOException("store unavailable")))
                    : delegate().append(stream));
        }
    }
}
