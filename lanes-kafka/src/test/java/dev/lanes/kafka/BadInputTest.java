package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.test.logging.LogCapture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
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
            RecordParkingLot.InMemory parked = (RecordParkingLot.InMemory) node.kafka.parkingLot();
            Awaitility.await().atMost(TIMEOUT).until(() -> !parked.records().isEmpty());
            ParkedRecord record = parked.records().get(0);
            assertThat(record.topic()).isEqualTo(run + ".ledger.commands");
            assertThat(record.partition()).isZero();
            assertThat(record.offset()).isZero();
            assertThat(record.error())
                    .isInstanceOf(RecordDecodingException.class)
                    .hasMessageContaining("not JSON");
            assertThat(logs.lines(Level.WARN))
                    .singleElement()
                    .satisfies(line -> assertThat(line.message())
                            .startsWith("Parked ParkedRecord[" + run + ".ledger.commands-0@0")
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
