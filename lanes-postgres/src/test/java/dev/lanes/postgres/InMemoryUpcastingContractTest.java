package dev.lanes.postgres;

import dev.lanes.eventsourcing.EncodedPayload;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.eventsourcing.PayloadCodec;
import dev.lanes.test.UpcastingContract;
import java.util.EnumMap;
import java.util.Map;

/**
 * The upcasting contract in memory: one store, {@link EventStores#inMemory(PayloadCodec)}, whose codec is the
 * serializer of the release the test set last (a switch only a test may have: a real codec is stateless).
 */
class InMemoryUpcastingContractTest extends UpcastingContract {
    private final Map<Release, JacksonEventSerializer> serializers = new EnumMap<>(Release.class);
    private volatile Release release = Release.CURRENT;
    private final EventStore store = EventStores.inMemory(new PayloadCodec() {
        @Override
        public EncodedPayload encode(Object payload) {
            return serializers.get(release).encode(payload);
        }

        @Override
        public Object decode(EncodedPayload stored) {
            return serializers.get(release).decode(stored);
        }
    });

    InMemoryUpcastingContractTest() {
        for (Release each : Release.values()) {
            serializers.put(each, UpcastingReleases.serializer(each));
        }
    }

    @Override
    protected EventStore storeAt(Release release) {
        this.release = release;
        return store;
    }
}
