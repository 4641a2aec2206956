package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.PositionedStream;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountEvent.AccountOpened;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Gap-tolerant reading: an append that took a lower position and commits after a higher one is never skipped by a
 * reader that continues after the last position it read; an append rolled back leaves a gap that blocks nothing.
 */
class GlobalPositionTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private final PostgresEventStore store = TestDatabase.store();

    /**
     * A writer inside its transaction: the store's own insert, not committed yet; its position is its transaction id,
     * scaled (an append alone).
     */
    private static final class OpenAppend implements AutoCloseable {
        final Connection connection;
        final long position;

        OpenAppend(PostgresEventStore store, AggregateId id) throws SQLException {
            this(store, id, Deposited.class.getName());
        }

        OpenAppend(PostgresEventStore store, AggregateId id, String type) throws SQLException {
            connection = store.dataSource().getConnection();
            connection.setAutoCommit(false);
            try (PreparedStatement insert = connection.prepareStatement(PostgresEventStore.INSERT)) {
                int i = PostgresEventStore.bindKey(insert, 1, id);
                insert.setInt(i++, 1);
                insert.setString(i++, "stream-" + UUID.randomUUID());
                String requestId = "req-" + UUID.randomUUID();
                insert.setString(i++, requestId);
                insert.setString(i++, "cmd-" + UUID.randomUUID());
                insert.setObject(i++, OffsetDateTime.now(ZoneOffset.UTC));
                insert.setString(i++, "{}");
                insert.setString(
                        i++,
                        "[{\"sequence\": 1, \"type\": \"" + type
                                + "\", \"payload\": {\"amount\": 5, \"reference\": \"\"}}]");
                PostgresEventStore.bindChecks(insert, i, id, 1, requestId);
                assertThat(insert.executeUpdate()).isEqualTo(1);
            }
            try (PreparedStatement query = connection.prepareStatement("SELECT pg_current_xact_id()::text::bigint");
                    ResultSet rows = query.executeQuery()) {
                rows.next();
                position = rows.getLong(1) * PostgresEventStore.POSITIONS_PER_TRANSACTION;
            }
        }

        @Override
        public void close() throws SQLException {
            connection.close();
        }
    }

    private static DomainEventStream opened(AggregateId id) {
        return DomainEventStream.of(
                CommandMessage.of(id, new OpenAccount("ann"), "open-" + UUID.randomUUID()),
                1,
                List.of(new AccountOpened("ann")));
    }

    private List<PositionedStream> readFrom(long position) {
        return store.readAll(position, 100).collectList().block(TIMEOUT);
    }

    /**
     * Reads once {@code count} streams are readable: a read sees nothing past a transaction still open anywhere in the
     * cluster (another test's, or autovacuum's), so the first read after a commit may still be held back.
     */
    private List<PositionedStream> readingAtLeast(int count, long position) {
        return Awaitility.await().atMost(TIMEOUT).until(() -> readFrom(position), read -> read.size() >= count);
    }

    @Test
    void aLowerPositionCommittedAfterAHigherOneIsReadBeforeItAndNothingIsReadPastItMeanwhile() throws SQLException {
        AggregateId late = Bank.account("late-" + UUID.randomUUID());
        AggregateId early = Bank.account("early-" + UUID.randomUUID());
        try (OpenAppend open = new OpenAppend(store, late)) {
            store.append(opened(early)).block(TIMEOUT);

            assertThat(readFrom(open.position))
                    .as("the committed stream above an append still in flight is not readable yet")
                    .isEmpty();

            open.connection.commit();
            List<PositionedStream> read = readingAtLeast(2, open.position);
            assertThat(read).extracting(PositionedStream::aggregateId).containsExactly(late, early);
            assertThat(read.get(0).position()).isEqualTo(open.position);
            assertThat(read.get(1).position()).isGreaterThan(open.position);
        }
    }

    @Test
    void lastPositionIsThePositionOfTheLastStreamOfTheTypesAndZeroWithoutOne() {
        try (PostgresEventStore own = PostgresEventStore.connect(
                TestDatabase.jdbcUrl(TestDatabase.createDatabase()), TestDatabase.USER, null)) {
            own.migrate(); // a database of its own: the shared one's last position moves with other tests
            Set<dev.lanes.api.MaterializedNamedAggregate> accounts = Set.of(Bank.ACCOUNT.materialize());
            Set<dev.lanes.api.MaterializedNamedAggregate> ledgers =
                    Set.of(NamedAggregate.of("other", "ledger").materialize());
            assertThat(own.lastPosition(accounts).block(TIMEOUT)).isZero();

            own.append(opened(Bank.account("first-" + UUID.randomUUID()))).block(TIMEOUT);
            own.append(opened(Bank.account("second-" + UUID.randomUUID()))).block(TIMEOUT);
            List<PositionedStream> stored = Awaitility.await()
                    .atMost(TIMEOUT)
                    .until(() -> own.readAll(0, 10).collectList().block(TIMEOUT), read -> read.size() == 2);

            assertThat(own.lastPosition(accounts).block(TIMEOUT))
                    .isEqualTo(stored.get(1).position());
            assertThat(own.lastPosition(Set.of()).block(TIMEOUT))
                    .isEqualTo(stored.get(1).position());
            assertThat(own.lastPosition(ledgers).block(TIMEOUT)).isZero();
        }
    }

    @Test
    void aStreamOfATypeThatCannotBeDecodedHoldsUpNoReaderOfOtherTypes() throws SQLException {
        try (PostgresEventStore own = PostgresEventStore.connect(
                TestDatabase.jdbcUrl(TestDatabase.createDatabase()), TestDatabase.USER, null)) {
            own.migrate(); // a database of its own: the unreadable stream would stop the shared one's readers
            aStreamOfATypeThatCannotBeDecodedHoldsUpNoReaderOfOtherTypes(own);
        }
    }

    private static void aStreamOfATypeThatCannotBeDecodedHoldsUpNoReaderOfOtherTypes(PostgresEventStore store)
            throws SQLException {
        AggregateId unreadable = AggregateId.of(NamedAggregate.of("gone", "ledger"), "l-" + UUID.randomUUID());
        AggregateId readable = Bank.account("after-" + UUID.randomUUID());
        long position;
        try (OpenAppend open = new OpenAppend(store, unreadable, "com.example.RemovedEvent")) {
            position = open.position;
            open.connection.commit();
        }
        store.append(opened(readable)).block(TIMEOUT);

        assertThat(store.readAll(position, 10, Set.of(Bank.ACCOUNT.materialize()))
                        .collectList()
                        .block(TIMEOUT))
                .extracting(PositionedStream::aggregateId)
                .containsExactly(readable);
        assertThatThrownBy(() -> store.readAll(position, 10).collectList().block(TIMEOUT))
                .as("a reader of every type meets it")
                .isInstanceOf(EventSerializationException.class)
                .hasMessageContaining("com.example.RemovedEvent");
    }

    @Test
    void aRolledBackAppendLeavesAGapThatHoldsNothingBack() throws SQLException {
        AggregateId rolledBack = Bank.account("gone-" + UUID.randomUUID());
        AggregateId kept = Bank.account("kept-" + UUID.randomUUID());
        long gap;
        try (OpenAppend open = new OpenAppend(store, rolledBack)) {
            gap = open.position;
            store.append(opened(kept)).block(TIMEOUT);
            open.connection.rollback();
        }

        List<PositionedStream> read = readingAtLeast(1, gap);

        assertThat(read).extracting(PositionedStream::aggregateId).containsExactly(kept);
        assertThat(read.get(0).position()).isGreaterThan(gap);
    }
}
