package dev.lanes.cli.command;

import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.testsupport.TestPostgres;

/** A database with the Lanes schema on the test JVM's one embedded PostgreSQL, for the commands that read one. */
final class MigratedDatabase {
    private MigratedDatabase() {}

    /** Creates a fresh database, migrates it and returns its JDBC URL. */
    static String create() {
        String url = TestPostgres.emptyDatabase();
        try (PostgresEventStore store = PostgresEventStore.connect(url, TestPostgres.USER, null)) {
            store.migrate();
        }
        return url;
    }
}
