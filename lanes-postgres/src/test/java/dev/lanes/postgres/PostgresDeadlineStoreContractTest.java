package dev.lanes.postgres;

import dev.lanes.deadline.DeadlineStore;
import dev.lanes.test.DeadlineStoreContract;
import org.junit.jupiter.api.AfterAll;

/**
 * The deadline store contract against a real PostgreSQL; the concurrent claimers are two stores on two pools, as two
 * instances of a service are.
 */
class PostgresDeadlineStoreContractTest extends DeadlineStoreContract {
    private static PostgresEventStore secondInstance;

    @Override
    protected DeadlineStore createStore() {
        PostgresEventStore shared = TestDatabase.store();
        Jdbc.over(shared.dataSource(), 1).execute("emptying lanes_deadlines", connection -> {
            try (var statement = connection.createStatement()) {
                return statement.executeUpdate("DELETE FROM lanes_deadlines");
            }
        });
        return shared.deadlineStore();
    }

    @Override
    protected DeadlineStore secondView(DeadlineStore store) {
        if (secondInstance == null) {
            secondInstance = PostgresEventStore.connect(TestDatabase.jdbcUrl(), TestDatabase.USER, null);
        }
        return secondInstance.deadlineStore();
    }

    @AfterAll
    static void closeSecondInstance() {
        if (secondInstance != null) {
            secondInstance.close();
            secondInstance = null;
        }
    }
}
