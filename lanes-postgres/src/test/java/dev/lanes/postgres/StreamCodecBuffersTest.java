package dev.lanes.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import dev.lanes.messaging.DomainEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A stream's events are serialized before its {@code jsonb} array's generator opens, never inside it: the serializer's
 * own Jackson generator opened inside the array's on the same thread finds the thread's recycled buffers taken and
 * allocates new ones for every event (most of the encoding's cost in a profile of the Kafka + PostgreSQL command path).
 */
class StreamCodecBuffersTest {
    record Deposited(long amount) {}

    @Test
    void eachEventIsSerializedWithTheThreadsRecycledBuffers() {
        JacksonEventSerializer jackson = new JacksonEventSerializer();
        List<char[]> seen = new ArrayList<>();
        EventSerializer probe = new EventSerializer() {
            @Override
            public String serialize(Object payload) {
                BufferRecycler recycler = JsonRecyclerPools.threadLocalPool().acquirePooled();
                char[] buffer = recycler.allocCharBuffer(BufferRecycler.CHAR_CONCAT_BUFFER);
                seen.add(buffer);
                recycler.releaseCharBuffer(BufferRecycler.CHAR_CONCAT_BUFFER, buffer);
                return jackson.serialize(payload);
            }

            @Override
            public Object deserialize(String typeName, String json) {
                return jackson.deserialize(typeName, json);
            }
        };
        StreamCodec codec = new StreamCodec(probe);
        List<DomainEvent> events = List.of(new DomainEvent(1, new Deposited(5)), new DomainEvent(2, new Deposited(7)));
        codec.encodeEvents(events);
        BufferRecycler recycler = JsonRecyclerPools.threadLocalPool().acquirePooled();
        char[] recycled = recycler.allocCharBuffer(BufferRecycler.CHAR_CONCAT_BUFFER);
        recycler.releaseCharBuffer(BufferRecycler.CHAR_CONCAT_BUFFER, recycled);
        seen.clear();

        String json = codec.encodeEvents(events);

        assertThat(seen).hasSize(2).allSatisfy(buffer -> assertThat(buffer).isSameAs(recycled));
        assertThat(codec.decodeEvents(json)).isEqualTo(events);
    }
}
