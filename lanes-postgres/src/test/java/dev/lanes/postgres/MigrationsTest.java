package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
            assertThat(Migrations.apply(pool))
                    .isEqualTo(Migrations.latestVersion())
                    .isEqualTo(4);
            assertThat(Migrations.apply(pool)).isEqualTo(4);
            try (PostgresEventStore store = new PostgresEventStore(pool)) {
                assertThat(store.migrate()).isEqualTo(4);
            }

            assertThat(query(pool, "SELECT version || ':' || description FROM lanes_schema_version ORDER BY version"))
                    .containsExactly("1:event_store", "4:dead_letters");
            assertThat(query(
                            pool,
                            "SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'lanes%'"
                                    + " ORDER BY table_name"))
                    .containsExactly(
                            "lanes_dead_letter_retries",
                            "lanes_dead_letters",
                            "lanes_event_streams",
                            "lanes_schema_version",
                            "lanes_snapshots");
            assertThat(query(
                            pool,
                            "SELECT conname FROM pg_constraint WHERE conrelid = 'lanes_event_streams'::regclass"
                                    + " AND contype IN ('p', 'u') ORDER BY conname"))
                    .containsExactly(PostgresEventStore.REQUEST_CONSTRAINT, PostgresEventStore.VERSION_CONSTRAINT);
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
                    assertThat(version.get(30, TimeUnit.SECONDS)).isEqualTo(4);
                }
            } finally {
                threads.shutdownNow();
            }
            assertThat(query(pool, "SELECT count(*) FROM lanes_schema_version")).containsExactly("2");
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
