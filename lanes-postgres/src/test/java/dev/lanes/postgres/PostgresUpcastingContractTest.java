package dev.lanes.postgres;

import dev.lanes.eventsourcing.EventStore;
import dev.lanes.test.UpcastingContract;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

/**
 * The upcasting contract against a real PostgreSQL: one store per release, each with that release's serializer, all
 * connected to one database of their own (the shared database's readers know none of these type names).
 */
class PostgresUpcastingContractTest extends UpcastingContract {
    private static final String DATABASE = TestDatabase.createDatabase();
    private static final Map<Release, PostgresEventStore> STORES = new EnumMap<>(Release.class);

    @Override
    protected EventStore storeAt(Release release) {
        synchronized (STORES) {
            return STORES.computeIfAbsent(release, PostgresUpcastingContractTest::connect);
        }
    }

    private static PostgresEventStore connect(Release release) {
        PostgresEventStore store = PostgresEventStore.connect(
                TestDatabase.jdbcUrl(DATABASE),
                TestDatabase.USER,
                null,
                PostgresOptions.DEFAULT.withPoolSize(2),
                UpcastingReleases.serializer(release));
        store.migrate();
        return store;
    }

    @AfterAll
    static void closeStores() {
        synchronized (STORES) {
            STORES.values().forEach(PostgresEventStore::close);
            STORES.clear();
        }
    }
}
