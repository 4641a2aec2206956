package dev.lanes.postgres;

import dev.lanes.testsupport.TestPostgres;

/**
 * This module's view of the test JVM's one embedded PostgreSQL ({@link TestPostgres}, lanes-test-support), with one
 * migrated {@link PostgresEventStore} that tests may share (they use fresh aggregate ids).
 */
final class TestDatabase {
    static final String USER = TestPostgres.USER;

    private TestDatabase() {}

    private static final class Holder {
        static final PostgresEventStore STORE = sharedStore();

        private static PostgresEventStore sharedStore() {
            PostgresEventStore store =
                    PostgresEventStore.connect(jdbcUrl(), USER, null, PostgresOptions.DEFAULT.withPoolSize(16));
            store.migrate();
            return store;
        }
    }

    static int port() {
        return TestPostgres.port();
    }

    /** The {@code postgres} database. */
    static String jdbcUrl() {
        return jdbcUrl("postgres");
    }

    static String jdbcUrl(String database) {
        return TestPostgres.url(database);
    }

    /** The shared, migrated store over a pool of 16 (closed at JVM exit). */
    static PostgresEventStore store() {
        return Holder.STORE;
    }

    /** A fresh, empty database; returns its name. */
    static String createDatabase() {
        return TestPostgres.createDatabase();
    }
}
