package dev.lanes.test.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandResult;
import dev.lanes.command.StageNotReachedException;
import dev.lanes.command.WaitStage;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.dispatch.ExchangeRejectedException;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.event.DomainEventBus;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.BankNode;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** What a sender is told is the truth about the store: stored commands are never answered as rejected. */
class SenderTruthTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void aForceStopAfterTheAppendAnswersTheSenderWithTheStoredResult() {
        EventStore store = EventStores.inMemory();
        BankNode bank = new BankNode("Bank", store, 4096, new StuckEventBus(), b -> b).start();
        AggregateId id = Bank.account("stored");

        Mono<CommandResult> open = bank.gateway()
                .send(CommandMessage.of(id, new OpenAccount("ann"), "open-1"), WaitStage.PROCESSED)
                .cache();
        open.subscribe(result -> {}, error -> {});
        org.awaitility.Awaitility.await()
                .atMost(TIMEOUT)
                .until(() -> store.hasRequestId(id, "open-1").block(TIMEOUT));
        bank.dispatcher().forceStop();

        StepVerifier.create(open)
                .assertNext(result -> {
                    assertThat(result.version()).isEqualTo(1);
                    assertThat(result.stage()).isEqualTo(WaitStage.PROCESSED);
                })
                .expectComplete()
                .verify(TIMEOUT);
        assertThat(bank.results().inFlight()).isZero();
    }

    @Test
    void aResendWithTheSameRequestIdReturnsTheStoredResultAndAppliesNothingTwice() {
        EventStore store = EventStores.inMemory();
        try (BankNode bank = new BankNode("Bank", store).start()) {
            AggregateId id = Bank.account("resend");
            bank.gateway().send(id, new OpenAccount("bo"), WaitStage.PROCESSED).block(TIMEOUT);
            for (int i = 0; i < 10; i++) {
                String requestId = "deposit-" + i;
                CommandResult first = bank.gateway()
                        .send(CommandMessage.of(id, new Deposit(100), requestId), WaitStage.PROCESSED)
                        .block(TIMEOUT);
                CommandResult resent = bank.gateway()
                        .send(CommandMessage.of(id, new Deposit(100), requestId), WaitStage.PROCESSED)
                        .block(TIMEOUT);
                assertThat(resent.version()).as("the stored version").isEqualTo(first.version());
                assertThat(resent.events()).isEqualTo(first.events());
                assertThat(resent.requestId()).isEqualTo(requestId);
            }
            assertThat(store.load(id, 1).count().block(TIMEOUT))
                    .as("10 deposits of 100, each stored once")
                    .isEqualTo(11);
        }
    }

    @Test
    void underAForceStopNoStoredCommandIsAnsweredAsRejected() {
        EventStore store = EventStores.inMemory();
        DomainEventBus eventBus = DomainEventBuses.inMemory(8);
        // a consumer group that never takes a stream: its route fills at 8
        eventBus.receive("Stuck", Bank.ACCOUNT).subscribe(new BaseSubscriber<MessageExchange<DomainEventStream>>() {
            @Override
            protected void hookOnSubscribe(Subscription subscription) {}
        });
        BankNode bank = new BankNode("Bank", store, 4096, eventBus, b -> b).start();
        int accounts = 50;
        Map<String, Object> answers = new ConcurrentHashMap<>();
        Flux.range(0, accounts)
                .flatMap(i -> {
                    String requestId = "open-" + i;
                    return bank.gateway()
                            .send(
                                    CommandMessage.of(Bank.account("r" + i), new OpenAccount("o"), requestId),
                                    WaitStage.PROCESSED)
                            .doOnNext(result -> answers.put(requestId, result))
                            .then()
                            .onErrorResume(error -> {
                                answers.put(requestId, error);
                                return Mono.empty();
                            });
                })
                .subscribe();
        org.awaitility.Awaitility.await()
                .atMost(TIMEOUT)
                .until(() -> Flux.range(0, accounts)
                                .filterWhen(i ->
                                        store.load(Bank.account("r" + i), 1).hasElements())
                                .count()
                                .block(TIMEOUT)
                        >= 8);

        bank.dispatcher().forceStop();

        org.awaitility.Awaitility.await().atMost(TIMEOUT).until(() -> answers.size() == accounts);
        answers.forEach((requestId, answer) -> {
            String account = "r" + requestId.substring("open-".length());
            boolean stored =
                    store.hasRequestId(Bank.account(account), requestId).block(TIMEOUT);
            if (answer instanceof StageNotReachedException notReached
                    && notReached.storage() != StageNotReachedException.Storage.NOT_STORED) {
                assertThat(notReached.storage() == StageNotReachedException.Storage.STORED)
                        .as("%s answered %s", requestId, notReached)
                        .isIn(stored, false);
            } else if (answer instanceof Throwable error) {
                assertThat(stored)
                        .as("%s answered %s but it is stored", requestId, error)
                        .isFalse();
            } else {
                assertThat(stored).as("%s answered %s", requestId, answer).isTrue();
            }
        });
        assertThat(bank.results().inFlight()).isZero();
    }

    @Test
    void aSentWaitIsAnsweredOnlyOnceTheLaneTookTheCommandNotWhenAFullLaneHandsItBack() {
        HeldEventStore store = new HeldEventStore(EventStores.inMemory());
        BankNode bank = new BankNode(
                "Bank",
                store,
                4096,
                DomainEventBuses.inMemory(64),
                b -> b.settings(CommandDispatcher.DEFAULT_SETTINGS
                        .withStrategy(LaneStrategy.KEYED)
                        .withBounds(1, 16)));
        bank.dispatcher()
                .prepare(dev.lanes.lifecycle.RuntimeContext.standalone())
                .block(TIMEOUT);
        AggregateId id = Bank.account("busy");
        store.hold.set(true);
        Mono<CommandResult> first = bank.gateway()
                .send(id, new OpenAccount("first"), WaitStage.SENT)
                .cache();
        Mono<CommandResult> second =
                bank.gateway().send(id, new Deposit(5), WaitStage.SENT).cache();
        first.subscribe(result -> {}, error -> {});
        second.subscribe(result -> {}, error -> {});

        // both wait in the bus; once started, the lane (bound 1) takes the first, whose append is held
        bank.dispatcher().start();

        StepVerifier.create(first)
                .assertNext(result -> assertThat(result.stage()).isEqualTo(WaitStage.SENT))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(second)
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(ExchangeRejectedException.class)
                        .satisfies(rejected -> assertThat(((ExchangeRejectedException) rejected).reason())
                                .isEqualTo(ExchangeRejectedException.Reason.LANE_FULL)))
                .verify(TIMEOUT);
        store.release();
        bank.close();
    }

    /** A bus whose publish never completes, as when a consumer group of a bounded bus is full for good. */
    private static final class StuckEventBus implements DomainEventBus {
        @Override
        public Mono<Void> publish(DomainEventStream stream) {
            return Mono.never();
        }

        @Override
        public Flux<MessageExchange<DomainEventStream>> receive(String consumerGroup, NamedAggregate namedAggregate) {
            return Flux.never();
        }
    }
}
