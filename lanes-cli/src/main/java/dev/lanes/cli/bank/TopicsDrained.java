package dev.lanes.cli.bank;

import dev.lanes.api.NamedAggregate;
import dev.lanes.kafka.KafkaOptions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Waits until every consumer group of a run has committed up to the end of its topic: the commands group on the
 * command topic, each processor's group on the event topic. Only then are all the instances' consumers caught up, so a
 * stop of every instance leaves nothing unread that the audit expects in the read models (a record published by one
 * instance into a partition whose consumer on another instance already left would otherwise wait for the next
 * owner). Polled every 200 ms; drained means two polls in a row found no lag.
 */
final class TopicsDrained {
    private static final long POLL_MILLIS = 200;

    private TopicsDrained() {}

    /** True when drained within {@code max}; false when it was not (the stop then goes on, the audit tells). */
    static boolean await(KafkaOptions options, NamedAggregate type, List<String> processors, Duration max) {
        Map<String, String> topicOfGroup = new HashMap<>();
        topicOfGroup.put(options.topics().group("commands"), options.topics().commands(type));
        processors.forEach(processor -> topicOfGroup.put(
                options.topics().group(processor), options.topics().events(type)));
        long deadline = System.nanoTime() + max.toNanos();
        try (Admin admin = Admin.create(properties(options))) {
            int quietPolls = 0;
            while (quietPolls < 2 && System.nanoTime() < deadline) {
                quietPolls = lag(admin, topicOfGroup) == 0 ? quietPolls + 1 : 0;
                Thread.sleep(POLL_MILLIS); // a poll interval of an operator's check, not a wait for a result
            }
            return quietPolls >= 2;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return false;
        }
    }

    private static long lag(Admin admin, Map<String, String> topicOfGroup)
            throws ExecutionException, InterruptedException, TimeoutException {
        long lag = 0;
        for (Map.Entry<String, String> entry : topicOfGroup.entrySet()) {
            Map<TopicPartition, Long> ends = ends(admin, entry.getValue());
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(entry.getKey())
                    .partitionsToOffsetAndMetadata()
                    .get(5, TimeUnit.SECONDS);
            for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
                OffsetAndMetadata at = committed.get(end.getKey());
                lag += end.getValue() - (at == null ? 0 : at.offset());
            }
        }
        return lag;
    }

    private static Map<TopicPartition, Long> ends(Admin admin, String topic)
            throws ExecutionException, InterruptedException, TimeoutException {
        TopicDescription description = Objects.requireNonNull(
                admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(5, TimeUnit.SECONDS)
                        .get(topic),
                () -> "no description of topic " + topic);
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        description
                .partitions()
                .forEach(p -> request.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(request).all().get(5, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
        return ends;
    }

    private static Properties properties(KafkaOptions options) {
        Properties properties = new Properties();
        properties.putAll(options.clientProperties());
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
        properties.put(AdminClientConfig.CLIENT_ID_CONFIG, options.instanceId() + "-drain");
        return properties;
    }
}
