package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lanes.api.AggregateId;
import dev.lanes.eventsourcing.PayloadCodec;
import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.eventsourcing.types.SerializedEvent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.postgres.JacksonEventSerializer;
import dev.lanes.testsupport.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A rolling deploy that renames an event class: an instance of the older release writes the event under its old name,
 * an instance of the newer one, with the new class and an upcaster from the old name, reads it, over the same topics.
 * The writer's codec is the PostgreSQL store's serializer, the reader's the bus's own: one registry, either codec.
 */
class RenamedEventAcrossInstancesTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String OPENED = "ledger.Opened";

    /** The older release's class: stored and sent under its class name, or under {@link #OPENED} at revision 1. */
    record OpenedBefore(String owner) {}

    /** The same event after the rename, at revision 2: {@code owner} became {@code holder}. */
    record AccountOpened(String holder) {}

    private final String run = "rename" + UUID.randomUUID().toString().substring(0, 8);
    private final KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
            .withTopics(TopicNaming.perContext(run))
            .withTopicCreation(1, (short) 1);
    private final Queue<Object> read = new ConcurrentLinkedQueue<>();
    private KafkaBuses older;
    private KafkaBuses newer;

    @AfterEach
    void close() {
        for (KafkaBuses kafka : new KafkaBuses[] {newer, older}) {
            if (kafka != null) {
                kafka.eventBus()
                        .consumers()
                        .forEach(consumer -> consumer.stopGracefully().block(TIMEOUT));
                kafka.stopGracefully().block(TIMEOUT);
            }
        }
    }

    @Test
    void anEventWrittenUnderItsOldNameByOneInstanceIsReadAsTheRenamedClassByAnother() {
        EventTypes before =
                EventTypes.builder().register(OpenedBefore.class, OPENED, 1).build();
        EventTypes after = EventTypes.builder()
                .register(AccountOpened.class, OPENED, 2)
                // the release before type names wrote the class name, without a revision
                .upcaster(OpenedBefore.class.getName(), 0, event -> event.as(OPENED, 1))
                .upcaster(OPENED, 1, RenamedEventAcrossInstancesTest::ownerToHolder)
                .build();
        older = open("older", new JacksonEventSerializer(JacksonEventSerializer.defaultObjectMapper(), before));
        newer = open("newer", new JacksonPayloadSerializer(JacksonPayloadSerializer.defaultObjectMapper(), after));
        KafkaBuses beforeTypeNames = open("first", new JacksonPayloadSerializer());
        newer.eventBus().receive("Reader", Ledger.ACCOUNT).subscribe(exchange -> {
            exchange.message().events().forEach(event -> read.add(event.payload()));
            exchange.acknowledge();
        });
        start(newer);

        beforeTypeNames
                .eventBus()
                .publish(stream("a", 1, new OpenedBefore("ada")))
                .block(TIMEOUT);
        // a publish completes once its producer took the record, not once the broker has it: two producers' records
        // reach the topic in the order the first was read, so the second is sent after it
        await().atMost(TIMEOUT).until(() -> read.size() == 1);
        older.eventBus().publish(stream("a", 2, new OpenedBefore("bob"))).block(TIMEOUT);
        beforeTypeNames.stopGracefully().block(TIMEOUT);

        await().atMost(TIMEOUT).until(() -> read.size() == 2);
        assertThat(read).containsExactly(new AccountOpened("ada"), new AccountOpened("bob"));
        assertThat(((ParkingTopic) newer.parkingLot()).parked()).isZero();
    }

    private static SerializedEvent<JsonNode> ownerToHolder(SerializedEvent<JsonNode> event) {
        ObjectNode payload = (ObjectNode) event.payload();
        payload.set("holder", payload.remove("owner"));
        return event.as(OPENED, 2);
    }

    private static DomainEventStream stream(String aggregate, int version, Object event) {
        AggregateId id = Ledger.account(aggregate);
        return DomainEventStream.of(CommandMessage.of(id, new Ledger.Open("x")), version, List.of(event));
    }

    private KafkaBuses open(String instance, PayloadCodec events) {
        KafkaBuses kafka = KafkaBuses.create(options.withInstanceId(run + "-" + instance), events);
        kafka.prepare(RuntimeContext.standalone()).block(TIMEOUT);
        kafka.start();
        return kafka;
    }

    private static void start(KafkaBuses kafka) {
        for (KafkaConsumerComponent consumer : kafka.eventBus().consumers()) {
            consumer.prepareNow(RuntimeContext.standalone());
            consumer.start();
        }
    }
}
