package dev.lanes.postgres;

import dev.lanes.eventsourcing.EventStore;
import dev.lanes.test.EventStoreContract;

/** The whole event store contract against a real PostgreSQL, through a pooled, migrated store. */
class PostgresEventStoreContractTest extends EventStoreContract {

    @Override
    protected EventStore createStore() {
        return TestDatabase.store();
    }
}
