package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.BankNode;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Lane threads are Reactor non-blocking threads: no JDBC call may ever run on one. Every JDBC call of the store is
 * recorded with its thread; callers subscribe from non-blocking ({@code Schedulers.newParallel}) threads.
 */
class NonBlockingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final RecordingDataSource recording =
            new RecordingDataSource(TestDatabase.store().dataSource());
    private final PostgresEventStore store = new PostgresEventStore(recording);
    private final Scheduler lanes = Schedulers.newParallel("lane-like", 2);

    @AfterEach
    void close() {
        store.close();
        lanes.dispose();
    }

    private static DomainEventStream stream(AggregateId id, int version) {
        return new DomainEventStream(
                "s-" + UUID.randomUUID(),
                id,
                version,
                "r-" + UUID.randomUUID(),
                "c-" + UUID.randomUUID(),
                List.of(new DomainEvent(1, new Deposited(version, ""))),
                Instant.now(),
                Map.of());
    }

    private void assertNoJdbcOnNonBlockingThreads() {
        assertThat(recording.calls).as("recorded JDBC calls").isNotEmpty();
        assertThat(recording.calls).allSatisfy(call -> {
            assertThat(call.nonBlocking())
                    .as("%s on %s is on a non-blocking thread", call.method(), call.thread())
                    .isFalse();
            assertThat(call.thread()).startsWith(Jdbc.SCHEDULER_NAME);
        });
    }

    @Test
    void appendsLoadsAndChecksSubscribedFromNonBlockingThreadsRunJdbcOnTheStoresScheduler() {
        AggregateId id = Bank.account("nb-" + UUID.randomUUID());
        List<Boolean> callerWasNonBlocking = new CopyOnWriteArrayList<>();

        Flux.range(1, 30)
                .concatMap(version -> Mono.defer(() -> {
                            callerWasNonBlocking.add(Schedulers.isInNonBlockingThread());
                            return store.append(stream(id, version));
                        })
                        .subscribeOn(lanes))
                .blockLast(TIMEOUT);
        List<DomainEventStream> loaded = Flux.defer(() -> {
                    callerWasNonBlocking.add(Schedulers.isInNonBlockingThread());
                    return store.load(id, 1);
                })
                .subscribeOn(lanes)
                .collectList()
                .block(TIMEOUT);
        Boolean known = Mono.defer(() -> store.hasRequestId(id, "r-unknown"))
                .subscribeOn(lanes)
                .block(TIMEOUT);

        assertThat(callerWasNonBlocking)
                .as("the callers ran on non-blocking threads")
                .containsOnly(true);
        assertThat(loaded).hasSize(30);
        assertThat(known).isFalse();
        assertThat(recording.statementsContaining("INSERT INTO lanes_event_streams"))
                .isEqualTo(30);
        assertNoJdbcOnNonBlockingThreads();
    }

    @Test
    void theProbeSeesANonBlockingThread() throws Exception {
        Mono.fromCallable(() -> {
                    recording.getConnection().close();
                    return true;
                })
                .subscribeOn(lanes)
                .block(TIMEOUT);

        assertThat(recording.calls)
                .isNotEmpty()
                .allSatisfy(call -> assertThat(call.nonBlocking())
                        .as("the recording would catch JDBC on a lane thread")
                        .isTrue());
    }

    @Test
    void aCommandDispatchersLanesNeverRunJdbc() {
        try (BankNode node = new BankNode("NonBlocking", store).start()) {
            List<AggregateId> accounts = Flux.range(0, 10)
                    .map(i -> Bank.account("nb-" + i + "-" + UUID.randomUUID()))
                    .collectList()
                    .block(TIMEOUT);
            assertThat(accounts).isNotNull();
            Flux.fromIterable(accounts)
                    .flatMap(id -> node.gateway().send(id, new OpenAccount("o"), WaitStage.PROCESSED))
                    .blockLast(TIMEOUT);
            List<CommandResult> results = Flux.range(0, 300)
                    .flatMap(
                            i -> node.gateway().send(accounts.get(i % 10), new Deposit(1 + i), WaitStage.PROCESSED), 32)
                    .collectList()
                    .block(TIMEOUT);

            assertThat(results).hasSize(300);
            assertThat(node.stats().parked()).isZero();
        }
        assertNoJdbcOnNonBlockingThreads();
    }
}
