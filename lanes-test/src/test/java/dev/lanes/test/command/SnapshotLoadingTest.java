package dev.lanes.test.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.dispatch.ExchangeRejectedException;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.eventsourcing.Snapshot;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.eventsourcing.SnapshotStores;
import dev.lanes.examples.bank.Account;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountCommand.Withdraw;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.BankNode;
import dev.lanes.examples.bank.BankRuleViolation;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

class SnapshotLoadingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void loadingStartsFromTheLatestSnapshotAndAppliesOnlyTheTail() {
        EventStore store = EventStores.inMemory();
        SnapshotStore snapshots = SnapshotStores.inMemory();
        AggregateId id = Bank.account("snap");
        try (BankNode writer = new BankNode("Writer", store).start()) {
            writer.gateway()
                    .send(id, new OpenAccount("sam"), WaitStage.PROCESSED)
                    .block(TIMEOUT);
            writer.gateway().send(id, new Deposit(10), WaitStage.PROCESSED).block(TIMEOUT);
            writer.gateway().send(id, new Deposit(20), WaitStage.PROCESSED).block(TIMEOUT);
        }
        // a snapshot at version 2 that says 500 (not what replay gives, so we can tell it was used)
        snapshots
                .save(new Snapshot(id, 2, new Account("sam", 500, true, false), Instant.now()))
                .block(TIMEOUT);

        try (BankNode reader = new BankNode(
                        "Reader",
                        store,
                        64,
                        DomainEventBuses.inMemory(64),
                        b -> b.snapshotStore(snapshots).cacheCapacity(0))
                .start()) {
            // 500 + 20 (version 3 applied on top of the snapshot) = 520; a full replay would give 30
            assertThat(reader.gateway()
                            .send(id, new Withdraw(520), WaitStage.PROCESSED)
                            .block(TIMEOUT)
                            .version())
                    .isEqualTo(4);
            assertThatThrownBy(() -> reader.gateway()
                            .send(id, new Withdraw(1), WaitStage.PROCESSED)
                            .block(TIMEOUT))
                    .isInstanceOf(BankRuleViolation.class)
                    .hasMessageContaining("balance 0");
        }
    }

    @Test
    void aFullLaneRejectsBackToItsSenderAndStoresNothingItRejected() {
        HeldEventStore store = new HeldEventStore(EventStores.inMemory());
        try (BankNode bank = new BankNode(
                        "Bank",
                        store,
                        1024,
                        DomainEventBuses.inMemory(64),
                        b -> b.settings(CommandDispatcher.DEFAULT_SETTINGS
                                .withStrategy(LaneStrategy.KEYED)
                                .withBounds(1, 1024)))
                .start()) {
            AggregateId id = Bank.account("hot");
            bank.gateway().send(id, new OpenAccount("h"), WaitStage.PROCESSED).block(TIMEOUT);
            // the sender is answered inside the handler, before the lane settles: wait until the lane's one slot is
            // free, then keep the next deposit inside the handler (its append held) so the lane stays full
            Awaitility.await().atMost(TIMEOUT).until(() -> bank.stats().queued() == 0);
            store.hold.set(true);
            Mono<CommandResult> held =
                    bank.gateway().send(id, new Deposit(1), WaitStage.PROCESSED).cache();
            held.subscribe(result -> {}, error -> {});
            Awaitility.await().atMost(TIMEOUT).until(() -> bank.stats().queued() == 1);

            List<Optional<ExchangeRejectedException.Reason>> answers = Flux.range(0, 200)
                    .flatMap(i -> bank.gateway()
                            .send(id, new Deposit(1), WaitStage.PROCESSED)
                            .map(r -> Optional.<ExchangeRejectedException.Reason>empty())
                            .onErrorResume(ExchangeRejectedException.class, e -> Mono.just(Optional.of(e.reason()))))
                    .collectList()
                    .block(TIMEOUT);
            assertThat(answers).hasSize(200).containsOnly(Optional.of(ExchangeRejectedException.Reason.LANE_FULL));

            store.release();
            assertThat(held.block(TIMEOUT).version()).isEqualTo(2);
            assertThat(bank.gateway()
                            .send(id, new Deposit(1), WaitStage.PROCESSED)
                            .block(TIMEOUT)
                            .version())
                    .isEqualTo(3);
            // the open and the two deposits the lane took; none of the 200 it handed back
            assertThat(store.load(id, 1).count().block(TIMEOUT)).isEqualTo(3);
        }
    }
}
