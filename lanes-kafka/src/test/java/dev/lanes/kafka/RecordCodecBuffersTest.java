package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.EncodedPayload;
import dev.lanes.eventsourcing.PayloadCodec;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Payloads are encoded before a record's JSON generator opens, never inside it: a serializer's own Jackson generator
 * (in {@code writeValueAsString}) opened inside the record's on the same thread finds the thread's recycled buffers
 * taken and allocates new ones for every payload, which a profile of the Kafka command path showed as the largest part
 * of encoding a record. The probe serializer looks, in each call, for the thread's recycled concat buffer.
 */
class RecordCodecBuffersTest {
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");

    record Place(String item) {}

    record Placed(String item) {}

    /** Takes the thread's recycled concat buffer in each call, notes it, and gives it back. */
    private static final class BufferProbe implements PayloadSerializer, PayloadCodec {
        private final JacksonPayloadSerializer jackson = new JacksonPayloadSerializer();
        private final List<char[]> seen = new ArrayList<>();

        private void look() {
            BufferRecycler recycler = JsonRecyclerPools.threadLocalPool().acquirePooled();
            char[] buffer = recycler.allocCharBuffer(BufferRecycler.CHAR_CONCAT_BUFFER);
            seen.add(buffer);
            recycler.releaseCharBuffer(BufferRecycler.CHAR_CONCAT_BUFFER, buffer);
        }

        @Override
        public String serialize(Object payload) {
            look();
            return jackson.serialize(payload);
        }

        @Override
        public Object deserialize(String typeName, String json) {
            return jackson.deserialize(typeName, json);
        }

        @Override
        public EncodedPayload encode(Object payload) {
            look();
            return jackson.encode(payload);
        }

        @Override
        public Object decode(EncodedPayload stored) {
            return jackson.decode(stored);
        }
    }

    private final BufferProbe probe = new BufferProbe();
    private final RecordCodec codec = new RecordCodec(probe);
    private char[] recycled = new char[0];

    @BeforeEach
    void warmTheThreadsBuffers() {
        codec.encode(CommandMessage.of(AggregateId.of(ORDER, "o-0"), new Place("warm")));
        BufferRecycler recycler = JsonRecyclerPools.threadLocalPool().acquirePooled();
        recycled = recycler.allocCharBuffer(BufferRecycler.CHAR_CONCAT_BUFFER);
        recycler.releaseCharBuffer(BufferRecycler.CHAR_CONCAT_BUFFER, recycled);
        probe.seen.clear();
    }

    @Test
    void aCommandsPayloadIsEncodedWithTheThreadsRecycledBuffers() {
        codec.encode(CommandMessage.of(AggregateId.of(ORDER, "o-1"), new Place("book")));

        assertThat(probe.seen)
                .hasSize(1)
                .allSatisfy(buffer -> assertThat(buffer).isSameAs(recycled));
    }

    @Test
    void aStreamsEventsAreEncodedWithTheThreadsRecycledBuffers() {
        CommandMessage command = CommandMessage.of(AggregateId.of(ORDER, "o-2"), new Place("pen"));

        codec.encode(DomainEventStream.of(command, 1, List.of(new Placed("pen"), new Placed("ink"))));

        assertThat(probe.seen)
                .hasSize(2)
                .allSatisfy(buffer -> assertThat(buffer).isSameAs(recycled));
    }

    @Test
    void anAnswersEventsAreEncodedWithTheThreadsRecycledBuffers() {
        AggregateId id = AggregateId.of(ORDER, "o-3");

        codec.encode(new Reply("a", "b", "m", "r", id, 4, List.of(new Placed("x")), null, null, null));

        assertThat(probe.seen)
                .hasSize(1)
                .allSatisfy(buffer -> assertThat(buffer).isSameAs(recycled));
    }
}
