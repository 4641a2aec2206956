package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountEvent.AccountOpened;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.BankNode;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;

/**
 * Two instances (two command dispatchers, each with its own pool and store) deposit concurrently to the same accounts
 * through one PostgreSQL. Only the database's unique constraints see the races; the loser evicts its cached state,
 * reloads and retries. The stored streams must be gapless, hold every deposit exactly once, and replay to the sum of
 * the deposits.
 */
class TwoInstancesPostgresTest {
    private static final Logger log = LoggerFactory.getLogger(TwoInstancesPostgresTest.class);

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int ACCOUNTS = 20;
    private static final int PER_INSTANCE = 2_000;

    /**
     * Both instances hammer the same 20 accounts, so one instance's lane (its state cached, one round trip per command)
     * keeps winning while the other's reloads (two round trips) and retries; with the default 5 retries the loser can
     * run out and park. This test is about correctness across instances, so the lanes retry patiently.
     */
    private static final LaneSettings PATIENT =
            CommandDispatcher.DEFAULT_SETTINGS.withRetryPolicy(CommandDispatcher.DEFAULT_RETRY_POLICY
                    .withMaxRetries(200)
                    .withBackoff(Duration.ofMillis(1), Duration.ofMillis(50)));

    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final PostgresEventStore firstStore = connect("first");
    private final PostgresEventStore secondStore = connect("second");
    private final BankNode first = new BankNode(
                    "First",
                    firstStore,
                    16_384,
                    DomainEventBuses.inMemory(1024),
                    builder -> builder.settings(PATIENT.withStrategy(LaneStrategy.KEYED)))
            .start();
    private final BankNode second = new BankNode(
                    "Second",
                    secondStore,
                    16_384,
                    DomainEventBuses.inMemory(1024),
                    builder -> builder.settings(PATIENT.withStrategy(LaneStrategy.KEYED)))
            .start();

    private static PostgresEventStore connect(String name) {
        return PostgresEventStore.connect(
                TestDatabase.jdbcUrl(),
                TestDatabase.USER,
                null,
                PostgresOptions.DEFAULT.withPoolSize(8).withApplicationName("lanes-" + name));
    }

    @AfterEach
    void close() {
        first.close();
        second.close();
        firstStore.close();
        secondStore.close();
    }

    private AggregateId account(int i) {
        return Bank.account(run + "-shared-" + i);
    }

    @Test
    void concurrentDepositsFromTwoInstancesAreGaplessCompleteAndEqualASerialReplay() {
        TestDatabase.store().migrate();
        Flux.range(0, ACCOUNTS)
                .flatMap(i -> first.gateway().send(account(i), new OpenAccount("o" + i), WaitStage.PROCESSED))
                .blockLast(TIMEOUT);
        // the second instance moves every account on, so the first's cached states are stale: its first command on
        // each conflicts however the two instances' commands interleave below
        List<CommandResult> movedOn = Flux.range(0, ACCOUNTS)
                .concatMap(i -> second.gateway().send(account(i), new Deposit(1), WaitStage.PROCESSED))
                .collectList()
                .block(TIMEOUT);

        List<CommandResult> results = Flux.merge(deposits(first, 1), deposits(second, 1_000_000))
                .collectList()
                .block(TIMEOUT);

        assertThat(results).hasSize(2 * PER_INSTANCE);
        assertThat(results).allSatisfy(result -> assertThat(result.stage()).isEqualTo(WaitStage.PROCESSED));
        assertThat(first.stats().retried())
                .as("cross-instance conflicts were detected by PostgreSQL and retried")
                .isGreaterThanOrEqualTo(ACCOUNTS);
        assertThat(first.stats().parked() + second.stats().parked()).isZero();
        log.info(
                "two instances: {} commands, {} + {} retries",
                results.size(),
                first.stats().retried(),
                second.stats().retried());

        long expectedTotal = ACCOUNTS;
        for (int i = 0; i < PER_INSTANCE; i++) {
            expectedTotal += amount(i, 1) + amount(i, 1_000_000);
        }
        Set<String> sentRequestIds = new HashSet<>();
        results.forEach(result -> sentRequestIds.add(result.requestId()));
        movedOn.forEach(result -> sentRequestIds.add(result.requestId()));
        long storedTotal = 0;
        int depositStreams = 0;
        Set<String> storedRequestIds = new HashSet<>();
        for (int i = 0; i < ACCOUNTS; i++) {
            AggregateId id = account(i);
            // read through a third store: what any instance would see
            List<DomainEventStream> streams =
                    TestDatabase.store().load(id, 1).collectList().block(TIMEOUT);
            assertThat(streams).isNotNull();
            assertThat(streams.get(0).payloads()).containsExactly(new AccountOpened("o" + i));
            long replayed = 0;
            for (int v = 0; v < streams.size(); v++) {
                DomainEventStream stream = streams.get(v);
                assertThat(stream.version()).as("gapless versions of %s", id).isEqualTo(v + 1);
                assertThat(storedRequestIds.add(stream.requestId()))
                        .as("duplicate %s", stream)
                        .isTrue();
                for (Object event : stream.payloads()) {
                    if (event instanceof Deposited deposited) {
                        replayed += deposited.amount();
                        depositStreams++;
                        assertThat(sentRequestIds).contains(stream.requestId());
                    }
                }
            }
            // both instances see the tail: their next command lands right after it
            CommandResult next = first.gateway()
                    .send(id, new Deposit(1), WaitStage.PROCESSED)
                    .then(second.gateway().send(id, new Deposit(1), WaitStage.PROCESSED))
                    .block(TIMEOUT);
            assertThat(next).isNotNull();
            assertThat(next.version()).isEqualTo(streams.size() + 2);
            storedTotal += replayed;
        }
        assertThat(depositStreams).as("every deposit stored exactly once").isEqualTo(2 * PER_INSTANCE + ACCOUNTS);
        assertThat(storedTotal).as("the replayed balances sum to the deposits").isEqualTo(expectedTotal);
    }

    private Flux<CommandResult> deposits(BankNode node, long base) {
        return Flux.range(0, PER_INSTANCE)
                .flatMap(
                        i -> node.gateway()
                                .send(account(i % ACCOUNTS), new Deposit(amount(i, base)), WaitStage.PROCESSED),
                        64);
    }

    private static long amount(int i, long base) {
        return base + i;
    }
}
