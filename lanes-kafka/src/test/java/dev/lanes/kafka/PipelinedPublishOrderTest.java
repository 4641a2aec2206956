package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.testsupport.TestKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * A command's lane hands its events to the producer and takes the aggregate's next command without waiting for Kafka,
 * so many streams of one aggregate are in flight at once (on topics made beforehand the producer keeps up to five
 * requests in flight per connection). Their partition still holds them in version order, with no gap.
 */
class PipelinedPublishOrderTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int CREDITS = 400;

    @Test
    void oneAggregatesStreamsReachTheirPartitionInVersionOrderWithManyInFlight() throws Exception {
        String run = "order" + UUID.randomUUID().toString().substring(0, 8);
        KafkaOptions options = KafkaOptions.of(TestKafka.bootstrapServers())
                .withTopics(TopicNaming.perContext(run))
                .withInstanceId("order-" + run);
        String events = options.topics().events(Ledger.ACCOUNT);
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
            admin.createTopics(List.of(
                            new NewTopic(options.topics().commands(Ledger.ACCOUNT), 2, (short) 1),
                            new NewTopic(events, 2, (short) 1),
                            new NewTopic(options.topics().replies(), 1, (short) 1),
                            new NewTopic(options.topics().parkedRecords(), 1, (short) 1)))
                    .all()
                    .get();
        }
        KafkaBuses kafka = KafkaBuses.create(options);
        Lanes lanes = kafka.applyTo(Lanes.builder())
                .aggregate(Ledger.definition())
                .eventStore(EventStores.inMemory())
                .shutdownTimeout(TIMEOUT)
                .build()
                .start(TIMEOUT);
        AggregateId account = Ledger.account(run);
        try {
            lanes.gateway()
                    .send(account, new Ledger.Open("ann"), WaitStage.PROCESSED)
                    .block(TIMEOUT);
            await("the open's events acknowledged (the partition's first batch)")
                    .atMost(TIMEOUT)
                    .until(() -> kafka.pendingAcks().waiting() == 0);
            // every credit is sent before any is answered: the lane takes them as fast as it hands their events over
            Flux.range(1, CREDITS)
                    .flatMap(i -> lanes.gateway().send(account, new Ledger.Credit(i), WaitStage.PROCESSED), CREDITS)
                    .then()
                    .block(TIMEOUT);
        } finally {
            lanes.stop();
        }

        List<Integer> versions = versionsIn(events, account);
        assertThat(versions).hasSize(CREDITS + 1);
        for (int i = 0; i < versions.size(); i++) {
            assertThat(versions.get(i)).as("the stream at index %d", i).isEqualTo(i + 1);
        }
    }

    private static List<Integer> versionsIn(String topic, AggregateId account) {
        RecordCodec codec = new RecordCodec(new JacksonPayloadSerializer());
        String key = RecordCodec.key(account);
        List<Integer> versions = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "read-" + topic,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()))) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (versions.size() < CREDITS + 1 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (key.equals(record.key())) {
                        DomainEventStream stream = codec.decodeStream(record.headers(), record.value());
                        versions.add(stream.version());
                    }
                }
            }
        }
        return versions;
    }
}
