package dev.lanes.postgres;

import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.test.EventStoreContract;

/**
 * The whole event store contract for the in-memory store that encodes payloads, with the serializer PostgreSQL uses:
 * encoding on append and decoding on every read change nothing a store must do.
 */
class InMemoryCodecEventStoreContractTest extends EventStoreContract {

    @Override
    protected EventStore createStore() {
        return EventStores.inMemory(new JacksonEventSerializer());
    }
}
