package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.event.OwnershipFence;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.testsupport.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * A close that comes while the consumer thread hands a record over (the receiver's {@code onNext} runs on that thread,
 * held here by a latch) lets that hand-over finish, hands out nothing after it (the records fetched with it wait, for
 * the next owner), waits for the handed-out record to settle, commits past it and leaves.
 */
class CloseDuringHandOverTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @Test
    void aCloseDuringAHandOverFinishesItThenHandsOutNothingMoreAndCommitsWhatSettled() throws Exception {
        String run = "handover" + UUID.randomUUID().toString().substring(0, 8);
        String topic = run + ".records";
        String group = run + "-group";
        TopicPartition partition = new TopicPartition(topic, 0);
        createAndFill(topic, List.of("first", "second", "third"));
        ConsumerLoop<String> loop = new ConsumerLoop<>(
                "HandOverConsumer[" + run + "]",
                group,
                type -> topic,
                KafkaOptions.of(TestKafka.bootstrapServers()).withInstanceId(run),
                new StringReader(),
                RecordParkingLot.inMemory(),
                List.of(),
                assigned -> OwnershipFence.NONE);
        CountDownLatch inHandOver = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<MessageExchange<String>> received = new CopyOnWriteArrayList<>();
        loop.route(Ledger.ACCOUNT.materialize(), null).subscribe(exchange -> {
            received.add(exchange);
            if (received.size() == 1) {
                inHandOver.countDown();
                awaitQuietly(release);
            }
        });
        loop.start(RuntimeContext.standalone());
        try {
            closesDuringTheHandOver(loop, inHandOver, release, received, group, partition);
        } finally {
            release.countDown();
            loop.forceStop();
        }
    }

    private static void closesDuringTheHandOver(
            ConsumerLoop<String> loop,
            CountDownLatch inHandOver,
            CountDownLatch release,
            List<MessageExchange<String>> received,
            String group,
            TopicPartition partition)
            throws Exception {
        assertThat(inHandOver.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                .as("the first record is being handed over")
                .isTrue();

        Mono<Void> closed = loop.close();
        assertThat(loop.state().phase()).isEqualTo(LoopState.Phase.CLOSING);
        release.countDown();
        received.get(0).acknowledge();
        closed.block(TIMEOUT);

        assertThat(received).extracting(MessageExchange::message).containsExactly("first");
        assertThat(committed(group)).containsEntry(partition, 1L);
        assertThat(loop.state().phase()).isEqualTo(LoopState.Phase.TERMINATED);
    }

    /** Reads each record's value as the message, of one account named by its key. */
    private static final class StringReader implements MessageReader<String> {

        @Override
        public String decode(ConsumerRecord<String, byte[]> record) {
            return new String(record.value(), StandardCharsets.UTF_8);
        }

        @Override
        public AggregateId aggregateId(String message) {
            return Ledger.account("one");
        }

        @Override
        public boolean followUp(String message) {
            return false;
        }

        @Override
        public boolean parksUnroutable() {
            return true;
        }
    }

    /** One partition, the records sent in one batch (so that one fetch brings them all). */
    private static void createAndFill(String topic, List<String> values) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                TestKafka.bootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG,
                "1000",
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                ByteArraySerializer.class.getName()))) {
            for (String value : values) {
                producer.send(new ProducerRecord<>(topic, 0, "one", value.getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    private static Map<TopicPartition, Long> committed(String group) throws Exception {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get();
            Map<TopicPartition, Long> committed = new HashMap<>();
            offsets.forEach((partition, offset) -> committed.put(partition, offset.offset()));
            return committed;
        }
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
