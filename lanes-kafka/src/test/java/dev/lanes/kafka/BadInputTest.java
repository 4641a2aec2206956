package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.test.logging.LogCapture;
import dev.lanes.testsupport.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;

/** An undecodable record is parked with where it is and why, and the partition moves on; bad setups fail at start. */
class BadInputTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** The parking lot's warning for the undecodable record. */
    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    @Test
    void anUndecodableCommandIsParkedWithItsCoordinatesAndThePartitionMovesOn() throws Exception {
        String run = "bad" + UUID.randomUUID().toString().substring(0, 8);
        KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
                .withTopics(TopicNaming.perContext(run))
                .withTopicCreation(1, (short) 1);
        try (KafkaNode node =
                new KafkaNode(run, options, EventStores.inMemory(), new ReadModel(), new ReadModel()).start()) {
            try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                    "bootstrap.servers", TestKafka.bootstrapServers(),
                    "key.serializer", StringSerializer.class.getName(),
                    "value.serializer", ByteArraySerializer.class.getName()))) {
                producer.send(new ProducerRecord<>(
                                run + ".ledger.commands",
                                null,
                                "default/ledger.account/x",
                                "{not json".getBytes(StandardCharsets.UTF_8),
                                RecordCodec.headers(RecordCodec.Kind.COMMAND)))
                        .get();
            }

            var opened = node.gateway
                    .send(Ledger.account("after"), new Ledger.Open("a"), WaitStage.PROCESSED)
                    .block(TIMEOUT);

            assertThat(opened.version()).as("the partition moved on past it").isEqualTo(1);
            ConsumerRecord<String, byte[]> parked = parkedRecord(run + ".parked-records");
            assertThat(parked.key()).isEqualTo("default/ledger.account/x");
            assertThat(new String(parked.value(), StandardCharsets.UTF_8))
                    .as("the value, unchanged")
                    .isEqualTo("{not json");
            assertThat(header(parked, "lanes.parked.topic")).isEqualTo(run + ".ledger.commands");
            assertThat(header(parked, "lanes.parked.partition")).isEqualTo("0");
            assertThat(header(parked, "lanes.parked.offset")).isEqualTo("0");
            assertThat(header(parked, "lanes.parked.group")).startsWith(run);
            assertThat(header(parked, "lanes.parked.error"))
                    .contains(RecordDecodingException.class.getSimpleName())
                    .contains("not JSON");
            assertThat(header(parked, RecordCodec.KIND_HEADER))
                    .as("its own headers, kept")
                    .isNotNull();
            assertThat(((ParkingTopic) node.kafka.parkingLot()).parked()).isEqualTo(1);
            assertThat(logs.lines(Level.WARN))
                    .singleElement()
                    .satisfies(line -> assertThat(line.message())
                            .startsWith("Parked on topic " + run + ".parked-records: ParkedRecord[" + run
                                    + ".ledger.commands-0@0")
                            .contains("the value is not JSON"));
            assertThat(logs.lines(Level.ERROR))
                    .singleElement()
                    .satisfies(line -> assertThat(line.message())
                            .contains(
                                    run + ".ledger.commands-0@0 (key default/ledger.account/x) cannot be read, so no"
                                            + " aggregate can be held for it: parked in ",
                                    "records after it are handled without it",
                                    "the value is not JSON"));
        }
    }

    /** The first record of the parked-records topic, read from its start. */
    private static ConsumerRecord<String, byte[]> parkedRecord(String topic) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                "bootstrap.servers", TestKafka.bootstrapServers(),
                "group.id", "read-" + UUID.randomUUID(),
                "auto.offset.reset", "earliest",
                "key.deserializer", StringDeserializer.class.getName(),
                "value.deserializer", ByteArrayDeserializer.class.getName()))) {
            consumer.subscribe(List.of(topic));
            List<ConsumerRecord<String, byte[]>> read = new ArrayList<>();
            Awaitility.await().atMost(TIMEOUT).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
                return !read.isEmpty();
            });
            return read.get(0);
        }
    }

    private static String header(ConsumerRecord<String, byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Test
    void aMissingTopicStopsTheStartWithOneErrorNamingTheServers() {
        String run = "missing" + UUID.randomUUID().toString().substring(0, 8);
        KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers()).withTopics(TopicNaming.perContext(run));
        KafkaNode node = new KafkaNode(run, options, EventStores.inMemory(), new ReadModel(), new ReadModel());

        assertThatThrownBy(node::start)
                .isInstanceOf(KafkaStartupException.class)
                .hasMessageContaining(TestKafka.bootstrapServers())
                .hasMessageContaining(run + ".ledger.commands");
        assertThat(node.runtime.state()).isEqualTo(LanesRuntime.State.STOPPED);
    }

    @Test
    void anUnreachableBrokerStopsTheStartWithinTheStartupTimeoutNamingTheServers() {
        KafkaOptions options = KafkaOptions.of("127.0.0.1:1").withStartupTimeout(Duration.ofSeconds(3));
        KafkaNode node = new KafkaNode("nowhere", options, EventStores.inMemory(), new ReadModel(), new ReadModel());
        long started = System.nanoTime();

        assertThatThrownBy(node::start)
                .isInstanceOf(KafkaStartupException.class)
                .hasMessageContaining("127.0.0.1:1")
                .hasMessageContaining("PT3S");
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
    }
}
