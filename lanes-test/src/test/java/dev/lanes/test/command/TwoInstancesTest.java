package dev.lanes.test.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.BankNode;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * Two command dispatchers (two instances) over one event store: the store's version check catches the races that
 * scheduling on one instance cannot see; the loser evicts its cached state, reloads and retries.
 */
class TwoInstancesTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /**
     * Both instances hammer the same accounts, so one instance's lane can keep winning while the other's reloads and
     * retries; on a loaded machine the loser could run out of the default retries and park. This test is about
     * correctness across instances, so the lanes retry patiently.
     */
    private static final UnaryOperator<CommandDispatcher.Builder> PATIENT =
            builder -> builder.settings(CommandDispatcher.DEFAULT_SETTINGS
                    .withStrategy(LaneStrategy.KEYED)
                    .withRetryPolicy(CommandDispatcher.DEFAULT_RETRY_POLICY
                            .withMaxRetries(200)
                            .withBackoff(Duration.ofMillis(1), Duration.ofMillis(50))));

    private final EventStore store = EventStores.inMemory();
    private final BankNode first = patient("First").start();
    private final BankNode second = patient("Second").start();

    private BankNode patient(String name) {
        return new BankNode(name, store, 4096, DomainEventBuses.inMemory(1024), PATIENT);
    }

    @AfterEach
    void close() {
        first.close();
        second.close();
    }

    @Test
    void concurrentCommandsOnTheSameAggregatesAreRetriedAndEndEqualToASerialReplay() {
        int accounts = 20;
        Flux.range(0, accounts)
                .flatMap(i -> first.gateway()
                        .send(Bank.account("shared-" + i), new OpenAccount("o" + i), WaitStage.PROCESSED))
                .blockLast(TIMEOUT);
        // the second instance moves every account on, so the first's cached states are stale: its first command on
        // each conflicts however the two instances' commands interleave below
        Flux.range(0, accounts)
                .concatMap(i -> second.gateway().send(Bank.account("shared-" + i), new Deposit(1), WaitStage.PROCESSED))
                .blockLast(TIMEOUT);

        int perInstance = 2_000;
        List<CommandResult> results = Flux.merge(
                        deposits(first, accounts, perInstance, 1), deposits(second, accounts, perInstance, 1_000_000))
                .collectList()
                .block(TIMEOUT);

        assertThat(results).hasSize(2 * perInstance);
        assertThat(first.stats().retried())
                .as("conflicts were detected and retried")
                .isGreaterThanOrEqualTo(accounts);
        assertThat(first.stats().parked() + second.stats().parked()).isZero();
        long expectedTotal = accounts;
        for (int i = 0; i < 2 * perInstance; i++) {
            expectedTotal += amount(i < perInstance ? i : i - perInstance, i < perInstance ? 1 : 1_000_000);
        }
        long storedTotal = 0;
        Set<String> requestIds = new HashSet<>();
        for (int i = 0; i < accounts; i++) {
            AggregateId id = Bank.account("shared-" + i);
            List<DomainEventStream> streams = store.load(id, 1).collectList().block(TIMEOUT);
            long replayed = 0;
            for (int v = 0; v < streams.size(); v++) {
                DomainEventStream stream = streams.get(v);
                assertThat(stream.version()).isEqualTo(v + 1);
                assertThat(requestIds.add(stream.requestId()))
                        .as("duplicate %s", stream)
                        .isTrue();
                for (Object event : stream.payloads()) {
                    if (event instanceof Deposited deposited) {
                        replayed += deposited.amount();
                    }
                }
            }
            long balance = first.gateway()
                    .send(id, new Deposit(1), WaitStage.PROCESSED)
                    .then(second.gateway().send(id, new Deposit(1), WaitStage.PROCESSED))
                    .map(r -> r.version())
                    .block(TIMEOUT);
            assertThat(balance).isEqualTo(streams.size() + 2);
            storedTotal += replayed;
        }
        assertThat(storedTotal).as("nothing lost or duplicated").isEqualTo(expectedTotal);
    }

    private static Flux<CommandResult> deposits(BankNode instance, int accounts, int count, long base) {
        return Flux.range(0, count)
                .flatMap(
                        i -> instance.gateway()
                                .send(
                                        Bank.account("shared-" + (i % accounts)),
                                        new Deposit(amount(i, base)),
                                        WaitStage.PROCESSED),
                        64);
    }

    private static long amount(int i, long base) {
        return base + i;
    }
}
