package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.lanes.eventsourcing.PositionedStream;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class MigrationsTest {

    private static HikariDataSource pool(String database) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabase.jdbcUrl(database));
        config.setUsername(TestDatabase.USER);
        config.setMaximumPoolSize(8);
        return new HikariDataSource(config);
    }

    private static List<String> query(HikariDataSource pool, String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection connection = pool.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                values.add(rows.getString(1));
            }
        }
        return values;
    }

    @Test
    void migratingCreatesTheSchemaOnceAndIsIdempotent() throws SQLException {
        try (HikariDataSource pool = pool(TestDatabase.createDatabase())) {
            int latest = Migrations.latestVersion();
            assertThat(Migrations.apply(pool)).isEqualTo(latest); // versions may have gaps (a number kept for a change)
            assertThat(Migrations.apply(pool)).isEqualTo(latest);
            try (PostgresEventStore store = new PostgresEventStore(pool)) {
                assertThat(store.migrate()).isEqualTo(latest);
            }

            assertThat(query(pool, "SELECT version || ':' || description FROM lanes_schema_version ORDER BY version"))
                    .containsExactlyElementsOf(Migrations.ALL.stream()
                            .map(migration -> migration.version() + ":" + migration.description())
                            .toList());
            assertThat(query(
                            pool,
                            "SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'lanes%'"
                                    + " ORDER BY table_name"))
                    .containsExactly(
                            "lanes_command_refusals",
                            "lanes_dead_letter_retries",
                            "lanes_dead_letters",
                            "lanes_deadlines",
                            "lanes_event_streams",
                            "lanes_partition_owners",
                            "lanes_position_scale",
                            "lanes_schema_version",
                            "lanes_snapshots",
                            "lanes_tracking_checkpoints",
                            "lanes_tracking_instances");
            assertThat(query(
                            pool,
                            "SELECT conname FROM pg_constraint WHERE conrelid = 'lanes_event_streams'::regclass"
                                    + " AND contype IN ('p', 'u') ORDER BY conname"))
                    .containsExactly(
                            "lanes_event_streams_position_uk",
                            PostgresEventStore.REQUEST_CONSTRAINT,
                            PostgresEventStore.VERSION_CONSTRAINT);
        }
    }

    /** A database at the version before {@code version}, as the release before it left it. */
    private static void migrateBefore(HikariDataSource pool, int version) throws SQLException {
        try (Connection connection = pool.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE lanes_schema_version (version INTEGER PRIMARY KEY, description TEXT NOT"
                    + " NULL, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())");
            for (Migrations.Migration migration : Migrations.ALL) {
                if (migration.version() < version) {
                    String script = Migrations.read(migration);
                    statement.execute(script);
                    statement.execute("INSERT INTO lanes_schema_version (version, description, checksum) VALUES ("
                            + migration.version() + ", '" + migration.description() + "', '"
                            + Migrations.sha256(script) + "')");
                }
            }
        }
    }

    /** A stream as a release before version 12 stored it: at an unscaled position (a transaction id by default). */
    private static void insertUnscaled(Statement statement, String id, String position) throws SQLException {
        statement.execute("INSERT INTO lanes_event_streams (tenant_id, context_name, aggregate_name, aggregate_id,"
                + " version, stream_id, request_id, command_id, created_at, headers, events, position) VALUES"
                + " ('default', 'bank', 'account', '" + id + "', 1, 's-" + id + "', 'r-" + id + "', 'c-" + id
                + "', now(), '{}', '[{\"sequence\": 1, \"type\": \"" + Deposited.class.getName()
                + "\", \"payload\": {\"amount\": 5, \"reference\": \"\"}}]', " + position + ")");
    }

    private static List<String> readIds(PostgresEventStore store, long from) {
        return store.readAll(from, 10)
                .map(positioned -> positioned.aggregateId().id())
                .collectList()
                .block();
    }

    /**
     * The upgrade to scaled positions while a writer of the release before is open: a batch of that release took its
     * transaction id before the migration (the ids of its positions) and stores its stream after it. A reader must not
     * pass that stream's unscaled position meanwhile, though a stream stored before the migration lies above it: while
     * a transaction older than the migration is open, readers keep the unscaled cut. With the scaled cut alone, "late"
     * would be read after "above" had been, and a reader going on from there would never see it.
     */
    @Test
    void aWriterOfTheReleaseBeforeOpenAcrossTheMigrationToScaledPositionsIsNeverPassed() throws Exception {
        try (HikariDataSource pool = pool(TestDatabase.createDatabase())) {
            migrateBefore(pool, 12);
            try (Connection old = pool.getConnection();
                    Statement oldWriter = old.createStatement();
                    Connection other = pool.getConnection();
                    Statement statement = other.createStatement()) {
                insertUnscaled(statement, "before", "DEFAULT");
                old.setAutoCommit(false);
                long oldId;
                try (ResultSet rows = oldWriter.executeQuery("SELECT pg_current_xact_id()::text::bigint")) {
                    rows.next();
                    oldId = rows.getLong(1);
                }
                insertUnscaled(statement, "above", "DEFAULT"); // a later transaction: above the open writer's id

                assertThat(Migrations.apply(pool)).isEqualTo(Migrations.latestVersion());
                try (PostgresEventStore store = new PostgresEventStore(pool)) {
                    store.append(DomainEventStream.of(
                                    CommandMessage.of(Bank.account("scaled"), new Deposit(5, ""), "r-scaled"),
                                    1,
                                    List.of(new Deposited(5, ""))))
                            .block();

                    assertThat(Awaitility.await()
                                    .atMost(Duration.ofSeconds(30))
                                    .until(() -> readIds(store, 0), ids -> !ids.isEmpty()))
                            .as("nothing at or above the open writer's id is read while it is open")
                            .containsExactly("before");

                    insertUnscaled(oldWriter, "late", Long.toString(oldId));
                    old.commit();
                    List<PositionedStream> read = Awaitility.await()
                            .atMost(Duration.ofSeconds(30))
                            .until(() -> store.readAll(0, 10).collectList().block(), all -> all.size() == 4);
                    assertThat(read)
                            .extracting(positioned -> positioned.aggregateId().id())
                            .containsExactly("before", "late", "above", "scaled");
                    assertThat(read.get(3).position() / PostgresEventStore.POSITIONS_PER_TRANSACTION)
                            .as("the new stream's position is its transaction's id, scaled")
                            .isGreaterThan(read.get(2).position());
                }
            }
        }
    }

    @Test
    void aBatchOfTheReleaseBeforeThatTookItsIdsAfterTheMigrationIsRefusedByTheCheck() throws SQLException {
        try (HikariDataSource pool = pool(TestDatabase.createDatabase())) {
            migrateBefore(pool, 12);
            Migrations.apply(pool);
            try (Connection connection = pool.getConnection();
                    Statement statement = connection.createStatement()) {
                assertThatThrownBy(
                                () -> insertUnscaled(statement, "unscaled", "pg_current_xact_id()::text::bigint + 1"))
                        .isInstanceOf(SQLException.class)
                        .hasMessageContaining("lanes_event_streams_position_scaled_ck");
                insertUnscaled(statement, "scaled", "DEFAULT");
            }
            try (PostgresEventStore store = new PostgresEventStore(pool)) {
                assertThat(Awaitility.await()
                                .atMost(Duration.ofSeconds(30))
                                .until(() -> readIds(store, 0), ids -> !ids.isEmpty()))
                        .containsExactly("scaled");
            }
        }
    }

    /** A database at schema version 1, as a release before global positions left it. */
    private static void migrateToVersion1(HikariDataSource pool) throws SQLException {
        Migrations.Migration first = Migrations.ALL.get(0);
        String script = Migrations.read(first);
        try (Connection connection = pool.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE lanes_schema_version (version INTEGER PRIMARY KEY, description TEXT NOT"
                    + " NULL, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())");
            statement.execute(script);
            statement.execute("INSERT INTO lanes_schema_version (version, description, checksum) VALUES (1, '"
                    + first.description() + "', '" + Migrations.sha256(script) + "')");
        }
    }

    @Test
    void streamsStoredBeforeVersion2GetPositionsInVersionOrderAndStayReadable() throws SQLException {
        try (HikariDataSource pool = pool(TestDatabase.createDatabase())) {
            migrateToVersion1(pool);
            String events = "'[{\"sequence\": 1, \"type\": \"" + Deposited.class.getName()
                    + "\", \"payload\": {\"amount\": 5, \"reference\": \"\"}}]'";
            try (Connection connection = pool.getConnection();
                    Statement statement = connection.createStatement()) {
                // v2 of "a" carries a clock earlier than v1's (another instance's clock): still read after v1
                for (String row : List.of(
                        "'a', 1, 'r1', now()",
                        "'a', 2, 'r2', now() - interval '1 hour'",
                        "'b', 1, 'r3', now() - interval '30 minutes'")) {
                    String[] values = row.split(", ", 4);
                    statement.execute("INSERT INTO lanes_event_streams VALUES ('default', 'bank', 'account', "
                            + values[0] + ", " + values[1] + ", 's', " + values[2] + ", 'c', " + values[3]
                            + ", '{}', " + events + ")");
                }
            }

            Migrations.apply(pool);

            try (PostgresEventStore store = new PostgresEventStore(pool)) {
                List<PositionedStream> all = store.readAll(0, 10).collectList().block();
                assertThat(all)
                        .extracting(positioned -> positioned.aggregateId().id() + " v" + positioned.version())
                        .containsExactly("b v1", "a v1", "a v2");
                assertThat(all).extracting(PositionedStream::position).containsExactly(1L, 2L, 3L);
                assertThat(all.get(0).stream().payloads()).containsExactly(new Deposited(5, ""));
            }
        }
    }

    @Test
    void aCheckpointSavedBeforeVersion10BecomesSegmentZeroOfOneWithItsClaim() throws SQLException {
        try (HikariDataSource pool = pool(TestDatabase.createDatabase())) {
            migrateBefore(pool, 10);
            try (Connection connection = pool.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("INSERT INTO lanes_tracking_checkpoints (processor, position, owner, claimed_until)"
                        + " VALUES ('Orders', 4242, 'instance-1', now() + interval '1 hour')");
            }

            assertThat(Migrations.apply(pool)).isEqualTo(Migrations.latestVersion());

            try (PostgresEventStore store = new PostgresEventStore(pool)) {
                assertThat(store.checkpointStore().segments("Orders", 1).block())
                        .isEqualTo(1);
                assertThat(store.checkpointStore().checkpoints("Orders").block())
                        .singleElement()
                        .satisfies(row -> {
                            assertThat(row.segment()).isEqualTo(dev.lanes.eventsourcing.Segment.ALL);
                            assertThat(row.position()).isEqualTo(4242L);
                            assertThat(row.owner()).isEqualTo("instance-1");
                        });
                assertThat(store.checkpointStore()
                                .claim("Orders", "instance-2", java.time.Duration.ofMinutes(1))
                                .block())
                        .as("the claim held before the migration still holds")
                        .isFalse();
            }
        }
    }

    @Test
    void instancesStartingTogetherMigrateOnce() throws Exception {
        int instances = 6;
        try (HikariDataSource pool = pool(TestDatabase.createDatabase())) {
            CyclicBarrier start = new CyclicBarrier(instances);
            ExecutorService threads = Executors.newFixedThreadPool(instances);
            try {
                List<Future<Integer>> versions = new ArrayList<>();
                for (int i = 0; i < instances; i++) {
                    versions.add(threads.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        return Migrations.apply(pool);
                    }));
                }
                for (Future<Integer> version : versions) {
                    assertThat(version.get(30, TimeUnit.SECONDS)).isEqualTo(Migrations.latestVersion());
                }
            } finally {
                threads.shutdownNow();
            }
            assertThat(query(pool, "SELECT count(*) FROM lanes_schema_version"))
                    .containsExactly(String.valueOf(Migrations.ALL.size()));
        }
    }

    @Test
    void aChangedAppliedScriptIsRefused() throws SQLException {
        try (HikariDataSource pool = pool(TestDatabase.createDatabase())) {
            Migrations.apply(pool);
            try (Connection connection = pool.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.executeUpdate("UPDATE lanes_schema_version SET checksum = 'edited' WHERE version = 1");
            }

            assertThatThrownBy(() -> Migrations.apply(pool))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("V1__event_store.sql")
                    .hasMessageContaining("must not change");
        }
    }

    @Test
    void withoutTheSchemaAStoreCallFailsNamingTheServerAndTheSqlState() {
        String database = TestDatabase.createDatabase();
        try (PostgresEventStore store =
                PostgresEventStore.connect(TestDatabase.jdbcUrl(database), TestDatabase.USER, null)) {
            assertThatThrownBy(() -> store.hasRequestId(dev.lanes.examples.bank.Bank.account("a"), "r")
                            .block())
                    .isInstanceOf(PostgresStoreException.class)
                    .hasMessageContaining("127.0.0.1:" + TestDatabase.port() + "/" + database)
                    .hasMessageContaining("42P01")
                    .hasMessageContaining("lanes_event_streams");
        }
    }
}
