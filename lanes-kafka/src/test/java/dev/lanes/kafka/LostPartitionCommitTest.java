package dev.lanes.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lanes.testsupport.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * What Lanes relies on Kafka for, and does not build itself: a consumer whose partition was taken away without a clean
 * revocation (it stopped polling for longer than {@code max.poll.interval.ms}, so the coordinator dropped it and
 * assigned the partition to another member) cannot commit an offset for it any more. The coordinator refuses the
 * commit of a member it no longer knows (the group protocol {@code consumer}, as {@link ConsumerLoop} uses it), so the
 * committed offset stays the new owner's.
 */
class LostPartitionCommitTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final String topic = "lost-commit-" + UUID.randomUUID();
    private final String group = "lost-commit-" + UUID.randomUUID();
    private final TopicPartition partition = new TopicPartition(topic, 0);

    @Test
    void aMemberDroppedForNotPollingCannotCommitForThePartitionItHadAndTheNewOwnersOffsetStays() throws Exception {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            produce(3);
            try (KafkaConsumer<String, String> old = consumer("old", "1000");
                    KafkaConsumer<String, String> next = consumer("next", "300000")) {
                old.subscribe(List.of(topic));
                await().atMost(TIMEOUT)
                        .until(() -> !old.poll(Duration.ofMillis(100)).isEmpty());
                assertThat(old.assignment()).containsExactly(partition);

                // the old member polls no more: after max.poll.interval.ms the coordinator drops it
                next.subscribe(List.of(topic));
                await().atMost(TIMEOUT).until(() -> {
                    next.poll(Duration.ofMillis(100));
                    return next.assignment().contains(partition);
                });
                next.commitSync(Map.of(partition, new OffsetAndMetadata(3)));

                assertThatThrownBy(() -> old.commitSync(Map.of(partition, new OffsetAndMetadata(1)), TIMEOUT))
                        .isInstanceOf(CommitFailedException.class);
                assertThat(admin.listConsumerGroupOffsets(group)
                                .partitionsToOffsetAndMetadata()
                                .get()
                                .get(partition)
                                .offset())
                        .as("the new owner's commit")
                        .isEqualTo(3);
            }
        }
    }

    private void produce(int records) throws Exception {
        Properties properties = new Properties();
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers());
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(properties)) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, "key", "record " + i)).get();
            }
        }
    }

    private KafkaConsumer<String, String> consumer(String name, String maxPollIntervalMs) {
        Properties properties = new Properties();
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.bootstrapServers());
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-" + name);
        properties.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, maxPollIntervalMs);
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(properties);
    }
}
