package dev.lanes.kafka;

import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.postgres.PostgresOptions;
import dev.lanes.testsupport.TestPostgres;

/** Databases with the Lanes schema on the test JVM's one embedded PostgreSQL, for tests that run several instances. */
final class InstanceDatabases {
    private InstanceDatabases() {}

    /** A fresh database with the Lanes schema; returns its JDBC URL. */
    static String fresh() {
        String url = TestPostgres.emptyDatabase();
        try (PostgresEventStore store = connect(url, "migration")) {
            store.migrate();
        }
        return url;
    }

    /** A store of one instance: a pool of its own, named after the instance. */
    static PostgresEventStore connect(String url, String instance) {
        return PostgresEventStore.connect(
                url,
                TestPostgres.USER,
                null,
                PostgresOptions.DEFAULT.withPoolSize(8).withApplicationName("lanes-" + instance));
    }
}
