package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.EncodedPayload;
import dev.lanes.eventsourcing.UndecodedPayload;
import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.eventsourcing.types.SerializedEvent;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.Headers;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Commands, streams and answers survive the trip through a record; what cannot be read says why. */
class RecordCodecTest {
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    private final RecordCodec codec = new RecordCodec(new JacksonPayloadSerializer());

    record Place(String item, int quantity, Instant at) {}

    record Placed(String item, List<String> tags) {}

    @Test
    void aCommandRoundTripsWithItsIdsTenantHeadersAndPayload() {
        CommandMessage command = new CommandMessage(
                "m-1",
                AggregateId.of(ORDER, "o-1", "acme"),
                "r-1",
                new Place("book", 2, Instant.parse("2026-01-02T03:04:05.123456Z")),
                Instant.parse("2026-01-02T03:04:05Z"),
                Map.of(CommandMessage.CAUSE_HEADER, "s-1/1"));

        CommandMessage read = codec.decodeCommand(RecordCodec.headers(RecordCodec.Kind.COMMAND), codec.encode(command));

        assertThat(read).isEqualTo(command);
        assertThat(read.isFollowUp()).isTrue();
    }

    @Test
    void aStreamRoundTripsEventByEvent() {
        CommandMessage command = CommandMessage.of(AggregateId.of(ORDER, "o-2"), new Place("pen", 1, Instant.EPOCH));
        DomainEventStream stream = DomainEventStream.of(
                command, 3, List.of(new Placed("pen", List.of("a", "b")), new Placed("ink", List.of())));

        DomainEventStream read = codec.decodeStream(RecordCodec.headers(RecordCodec.Kind.EVENTS), codec.encode(stream));

        assertThat(read).isEqualTo(stream);
        assertThat(read.createdAt()).isEqualTo(stream.createdAt().truncatedTo(ChronoUnit.MICROS));
    }

    @Test
    void anAnswerRoundTripsWithItsEventsItsFailureItsProjectionOrTheCommandThatStoredIt() {
        AggregateId id = AggregateId.of(ORDER, "o-3");
        Reply processed = new Reply("a", "b", "m", "r", id, 4, List.of(new Placed("x", List.of())), null, null, null);
        Reply failed =
                new Reply("a", "b", "m", "r", id, 0, List.of(), new Reply.Failure("T", "no", true, false), null, null);
        Reply projected = new Reply("a", "b", "m", "r", id, 0, List.of(), null, "Balances", null);
        Headers headers = RecordCodec.headers(RecordCodec.Kind.REPLY);

        assertThat(codec.decodeReply(headers, codec.encode(processed))).isEqualTo(processed);
        assertThat(codec.decodeReply(headers, codec.encode(failed))).isEqualTo(failed);
        Reply refused = new Reply(
                "a", "b", "m", "r", id, 0, List.of(), new Reply.Failure("B", "closed", false, true), null, null);
        assertThat(codec.decodeReply(headers, codec.encode(refused))).isEqualTo(refused);
        assertThat(codec.decodeReply(headers, codec.encode(projected))).isEqualTo(projected);
        Reply storedEarlier =
                new Reply("a", "b", "m2", "r", id, 4, List.of(new Placed("x", List.of())), null, null, "m");
        assertThat(codec.decodeReply(headers, codec.encode(storedEarlier))).isEqualTo(storedEarlier);
    }

    @Nested
    class EventTypeNames {
        private static final String PLACED = "shop.Placed";
        private final DomainEventStream stream = DomainEventStream.of(
                CommandMessage.of(AggregateId.of(ORDER, "o-4"), new Place("pen", 1, Instant.EPOCH)),
                1,
                List.of(new Placed("pen", List.of("a"))));

        @Test
        void aRegisteredEventTravelsUnderItsNameAndRevisionAnUnregisteredOneUnderItsClassNameWithout() {
            RecordCodec named =
                    codec(EventTypes.builder().register(Placed.class, PLACED, 3).build());

            String written = new String(named.encode(stream), StandardCharsets.UTF_8);

            assertThat(written).contains("\"type\":\"" + PLACED + "\",\"revision\":3,\"payload\"");
            assertThat(new String(codec.encode(stream), StandardCharsets.UTF_8))
                    .contains("\"type\":\"" + Placed.class.getName() + "\",\"payload\"")
                    .doesNotContain("revision");
        }

        @Test
        void aStreamWrittenByAnEarlierReleaseUnderClassNamesIsReadThroughTheUpcasterFromTheClassName() {
            byte[] earlierRelease = codec.encode(stream); // no revision: the class-name form, read at revision 0
            RecordCodec renamed = codec(EventTypes.builder()
                    .register(PlacedRenamed.class, PLACED, 1)
                    .upcaster(Placed.class.getName(), 0, event -> event.as(PLACED, 1))
                    .build());

            DomainEventStream read = renamed.decodeStream(RecordCodec.headers(RecordCodec.Kind.EVENTS), earlierRelease);

            assertThat(read.events()).extracting(DomainEvent::payload).containsExactly(new PlacedRenamed("pen"));
        }

        @Test
        void anOlderRevisionIsUpcastOnTheTreeAndAnAnswersEventsGoThroughTheSameCodec() {
            RecordCodec older =
                    codec(EventTypes.builder().register(Placed.class, PLACED, 1).build());
            RecordCodec current = codec(EventTypes.builder()
                    .register(PlacedRenamed.class, PLACED, 2)
                    .upcaster(PLACED, 1, (SerializedEvent<JsonNode> event) -> {
                        ((ObjectNode) event.payload()).remove("tags");
                        return event.as(PLACED, 2);
                    })
                    .build());
            Reply reply = new Reply(
                    "a",
                    "b",
                    "m",
                    "r",
                    stream.aggregateId(),
                    1,
                    List.of(new Placed("ink", List.of())),
                    null,
                    null,
                    null);

            assertThat(current.decodeStream(RecordCodec.headers(RecordCodec.Kind.EVENTS), older.encode(stream))
                            .events())
                    .extracting(DomainEvent::payload)
                    .containsExactly(new PlacedRenamed("pen"));
            assertThat(current.decodeReply(RecordCodec.headers(RecordCodec.Kind.REPLY), older.encode(reply))
                            .events())
                    .containsExactly(new PlacedRenamed("ink"));
        }

        @Test
        void anEventThatDoesNotDecodeIsKeptEncodedInItsStreamButABrokenEnvelopeFailsTheRecord() {
            RecordCodec newer =
                    codec(EventTypes.builder().register(Placed.class, PLACED, 2).build());
            RecordCodec older =
                    codec(EventTypes.builder().register(Placed.class, PLACED, 1).build());
            Headers headers = RecordCodec.headers(RecordCodec.Kind.EVENTS);

            DomainEventStream read = older.decodeStream(headers, newer.encode(stream));

            assertThat(read.aggregateId()).isEqualTo(stream.aggregateId());
            assertThat(read.version()).isEqualTo(1);
            assertThat(read.events())
                    .singleElement()
                    .extracting(DomainEvent::payload)
                    .isInstanceOfSatisfying(UndecodedPayload.class, payload -> {
                        assertThat(payload.encoded())
                                .isEqualTo(new EncodedPayload(PLACED, 2, "{\"item\":\"pen\",\"tags\":[\"a\"]}"));
                        assertThat(payload.reason()).contains(PLACED + " is at revision 1");
                    });
            String withoutAggregate =
                    new String(newer.encode(stream), StandardCharsets.UTF_8).replace("\"aggregateId\"", "\"gone\"");
            assertThatThrownBy(() -> older.decodeStream(headers, withoutAggregate.getBytes(StandardCharsets.UTF_8)))
                    .isInstanceOf(RecordDecodingException.class)
                    .hasMessageContaining("field 'aggregateId' is missing");
        }

        private RecordCodec codec(EventTypes types) {
            return new RecordCodec(new JacksonPayloadSerializer(JacksonPayloadSerializer.defaultObjectMapper(), types));
        }
    }

    record PlacedRenamed(String item) {}

    @Test
    void theKeyHoldsTenantTypeAndId() {
        assertThat(RecordCodec.key(AggregateId.of(ORDER, "o-1", "acme"))).isEqualTo("acme/shop.order/o-1");
        assertThat(RecordCodec.key(AggregateId.of(ORDER, "o-1"))).isEqualTo("default/shop.order/o-1");
    }

    @Test
    void anotherSchemaVersionIsRefusedNamingIt() {
        Headers headers = RecordCodec.headers(RecordCodec.Kind.COMMAND);
        headers.remove(RecordCodec.SCHEMA_HEADER);
        headers.add(RecordCodec.SCHEMA_HEADER, "2".getBytes(StandardCharsets.UTF_8));
        byte[] value = codec.encode(CommandMessage.of(AggregateId.of(ORDER, "o"), new Place("a", 1, Instant.EPOCH)));

        assertThatThrownBy(() -> codec.decodeCommand(headers, value))
                .isInstanceOf(RecordDecodingException.class)
                .hasMessageContaining("schema version 2");
    }

    @Test
    void garbageAndUnknownTypesAreRefusedSayingWhy() {
        Headers headers = RecordCodec.headers(RecordCodec.Kind.COMMAND);

        assertThatThrownBy(() -> codec.decodeCommand(headers, "{not json".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(RecordDecodingException.class)
                .hasMessageContaining("not JSON");
        String unknown = new String(
                        codec.encode(CommandMessage.of(AggregateId.of(ORDER, "o"), new Place("a", 1, Instant.EPOCH))),
                        StandardCharsets.UTF_8)
                .replace(Place.class.getName(), "com.example.Gone");
        assertThatThrownBy(() -> codec.decodeCommand(headers, unknown.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(RecordDecodingException.class)
                .hasMessageContaining("com.example.Gone");
        assertThatThrownBy(() -> codec.decodeStream(headers, new byte[0]))
                .isInstanceOf(RecordDecodingException.class)
                .hasMessageContaining("kind command where EVENTS was expected");
    }

    @Test
    void topicsAndGroupsArePerContextUnderAPrefix() {
        TopicNaming naming = TopicNaming.perContext("bank");

        assertThat(naming.commands(ORDER)).isEqualTo("bank.shop.commands");
        assertThat(naming.events(AggregateId.of(ORDER, "o"))).isEqualTo("bank.shop.events");
        assertThat(naming.replies()).isEqualTo("bank.replies");
        assertThat(naming.group("Balances")).isEqualTo("bank.Balances");
        assertThatThrownBy(() -> TopicNaming.perContext(" ")).hasMessageContaining("prefix must not be blank");
    }

    @Test
    void optionsRefuseBadValuesNamingThem() {
        assertThatThrownBy(() -> KafkaOptions.of("h:1").withPartitionBounds(0, 10))
                .hasMessageContaining("maxUnsettledPerPartition must be positive: 0");
        assertThatThrownBy(() -> KafkaOptions.of("")).hasMessageContaining("bootstrapServers must not be blank");
    }
}
