package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.testsupport.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * A command's lane goes on once the producer took its events, without waiting for Kafka's acknowledgement; its record
 * is committed only after that acknowledgement, so an instance that dies in between leaves the command to be read
 * again (and its stored events published again). The acknowledgement of the events is held by a producer interceptor
 * (it blocks the producer's I/O thread, so the instance's producer sends nothing meanwhile: the commands come from a
 * producer of the test's own); a later command of another partition, refused by the ledger (no events, so nothing to
 * wait for), shows that commits go on meanwhile.
 */
class CommitAfterEventAckTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void aCommandIsCommittedOnlyAfterKafkaAcknowledgedItsEventsWhileItsLaneGoesOn() throws Exception {
        String run = "ack" + UUID.randomUUID().toString().substring(0, 8);
        KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
                .withTopics(TopicNaming.perContext(run))
                .withTopicCreation(2, (short) 1)
                .withInstanceId("ack-" + run)
                .withCommitInterval(Duration.ofMillis(50))
                .withClientProperty("interceptor.classes", AckHold.class.getName());
        String commandTopic = options.topics().commands(Ledger.ACCOUNT);
        AckHold.holdTopic = options.topics().events(Ledger.ACCOUNT);
        AggregateId held = accountOnPartition(run, 0);
        AggregateId refused = accountOnPartition(run, 1);
        EventStore store = EventStores.inMemory();
        KafkaBuses kafka = KafkaBuses.create(options);
        Lanes lanes = kafka.applyTo(Lanes.builder())
                .aggregate(Ledger.definition())
                .eventStore(store)
                .shutdownTimeout(TIMEOUT)
                .build()
                .start(TIMEOUT);
        try (KafkaProducer<String, byte[]> commands = producer()) {
            long openAt = send(commands, commandTopic, CommandMessage.of(held, new Ledger.Open("ann")));
            assertThat(AckHold.holding.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                    .as("the events of the open are sent and their acknowledgement held")
                    .isTrue();
            assertThat(store.load(held, 1).collectList().block(TIMEOUT))
                    .as("appended")
                    .hasSize(1);

            long refusedAt = send(commands, commandTopic, CommandMessage.of(refused, new Ledger.Credit(5)));
            TopicPartition open = new TopicPartition(commandTopic, 0);
            TopicPartition other = new TopicPartition(commandTopic, 1);
            await("the refused credit (another partition) is committed")
                    .atMost(TIMEOUT)
                    .until(() -> AckHold.committed.getOrDefault(other, -1L) > refusedAt);
            assertThat(AckHold.committed.getOrDefault(open, -1L))
                    .as("the open's partition is not committed past it while its events are unacknowledged")
                    .isLessThanOrEqualTo(openAt);
            assertThat(kafka.pendingAcks().waiting()).isEqualTo(1);

            AckHold.release.countDown();
            await("committed past the open once its events are acknowledged")
                    .atMost(TIMEOUT)
                    .until(() -> AckHold.committed.getOrDefault(open, -1L) == openAt + 1);
            assertThat(kafka.pendingAcks().waiting()).isZero();
        } finally {
            AckHold.release.countDown();
            lanes.stop();
        }
    }

    /** An account whose commands go to {@code partition} of two (Kafka's default partitioner: murmur2 of the key). */
    private static AggregateId accountOnPartition(String run, int partition) {
        for (int i = 0; ; i++) {
            AggregateId account = Ledger.account(run + "-" + i);
            byte[] key = RecordCodec.key(account).getBytes(StandardCharsets.UTF_8);
            if (Utils.toPositive(Utils.murmur2(key)) % 2 == partition) {
                return account;
            }
        }
    }

    private static long send(KafkaProducer<String, byte[]> producer, String topic, CommandMessage command)
            throws Exception {
        RecordCodec codec = new RecordCodec(new JacksonPayloadSerializer());
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(
                topic,
                null,
                RecordCodec.key(command.aggregateId()),
                codec.encode(command),
                RecordCodec.headers(RecordCodec.Kind.COMMAND));
        return producer.send(record).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).offset();
    }

    private static KafkaProducer<String, byte[]> producer() {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers());
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(properties);
    }

    /**
     * In the instance's clients: holds the producer's acknowledgements of the event topic's records until {@link
     * #release} (the producer's I/O thread waits in {@code onAcknowledgement}, before the send's callback), and records
     * the offsets the consumers committed.
     */
    public static final class AckHold
            implements ProducerInterceptor<String, byte[]>, ConsumerInterceptor<String, byte[]> {
        static volatile String holdTopic = "";
        static final CountDownLatch holding = new CountDownLatch(1);
        static final CountDownLatch release = new CountDownLatch(1);
        static final Map<TopicPartition, Long> committed = new ConcurrentHashMap<>();

        @Override
        public ProducerRecord<String, byte[]> onSend(ProducerRecord<String, byte[]> record) {
            return record;
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
            if (metadata != null && metadata.topic().equals(holdTopic)) {
                holding.countDown();
                try {
                    release.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public ConsumerRecords<String, byte[]> onConsume(ConsumerRecords<String, byte[]> records) {
            return records;
        }

        @Override
        public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
            offsets.forEach((partition, offset) -> committed.merge(partition, offset.offset(), Math::max));
        }

        @Override
        public void close() {}

        @Override
        public void configure(Map<String, ?> configs) {}
    }
}
