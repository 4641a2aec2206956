package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.command.WaitStage;
import dev.lanes.deadline.Deadline;
import dev.lanes.deadline.DeadlineRunner;
import dev.lanes.deadline.DeadlineStore;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.Bank;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** Deadlines in PostgreSQL shared by two instances: claims skip locked rows, and each deadline fires once. */
class PostgresDeadlinesTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final Instant NOW = Instant.parse("2026-12-04T10:00:00Z");

    private String database;
    private PostgresEventStore first;
    private PostgresEventStore second;

    @BeforeEach
    void twoInstancesOnOneDatabase() {
        database = TestDatabase.createDatabase();
        first = PostgresEventStore.connect(TestDatabase.jdbcUrl(database), TestDatabase.USER, null);
        first.migrate();
        second = PostgresEventStore.connect(TestDatabase.jdbcUrl(database), TestDatabase.USER, null);
    }

    @AfterEach
    void close() {
        first.close();
        second.close();
    }

    private static Deadline deposit(String id, String account) {
        return new Deadline(
                id, Bank.account(account), "interest", NOW.minusSeconds(1), new Deposit(1, "interest:" + id));
    }

    @Test
    void aClaimSkipsTheRowsAnotherTransactionHoldsInsteadOfWaitingForThem() throws Exception {
        DeadlineStore store = first.deadlineStore();
        store.schedule(deposit("held", "a")).block(WAIT);
        store.schedule(deposit("free", "b")).block(WAIT);
        try (Connection other = DriverManager.getConnection(TestDatabase.jdbcUrl(database), TestDatabase.USER, "")) {
            other.setAutoCommit(false);
            try (Statement lock = other.createStatement();
                    ResultSet held = lock.executeQuery(
                            "SELECT deadline_id FROM lanes_deadlines WHERE deadline_id = 'held' FOR UPDATE")) {
                assertThat(held.next()).isTrue();
                List<Deadline> claimed = second.deadlineStore()
                        .claimDue(NOW, 10, Duration.ofMinutes(1))
                        .block(Duration.ofSeconds(5));
                assertThat(Objects.requireNonNull(claimed))
                        .extracting(Deadline::id)
                        .containsExactly("free");
            } finally {
                other.rollback();
            }
        }
    }

    @Test
    void twoRunnersOnOneDatabaseFireEachDeadlineOnce() {
        int count = 60;
        Scheduler polls = Schedulers.newParallel("deadline-polls", 2);
        try (Lanes lanes = Lanes.builder()
                .aggregate(Bank.definition())
                .eventStore(first)
                .build()
                .start()) {
            List<Deadline> deadlines = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                lanes.gateway()
                        .send(Bank.account("acc-" + i), new OpenAccount("owner " + i), WaitStage.PROCESSED)
                        .block(WAIT);
                Deadline deadline = deposit("d-" + i, "acc-" + i);
                first.deadlineStore().schedule(deadline).block(WAIT);
                deadlines.add(deadline);
            }
            DeadlineRunner.Settings settings = DeadlineRunner.Settings.DEFAULT
                    .withPollInterval(Duration.ofMillis(5))
                    .withBatchSize(3);
            DeadlineRunner a = DeadlineRunner.create(
                            first.deadlineStore(),
                            lanes.gateway(),
                            DeadLetterQueues.inMemory(),
                            Clock.systemUTC(),
                            polls,
                            settings)
                    .start();
            DeadlineRunner b = DeadlineRunner.create(
                            second.deadlineStore(),
                            lanes.gateway(),
                            DeadLetterQueues.inMemory(),
                            Clock.systemUTC(),
                            polls,
                            settings)
                    .start();

            await().atMost(WAIT)
                    .until(() -> first.deadlineStore().pending().block(WAIT).isEmpty());
            a.stop().block(WAIT);
            b.stop().block(WAIT);

            assertThat(a.fired() + b.fired())
                    .as("deadlines fired by the two runners")
                    .isEqualTo(count);
            for (Deadline deadline : deadlines) {
                assertThat(first.hasRequestId(deadline.target(), deadline.requestId())
                                .block(WAIT))
                        .as("%s was applied", deadline)
                        .isTrue();
            }
        } finally {
            polls.dispose();
        }
    }
}
