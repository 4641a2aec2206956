package dev.lanes.kafka;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.jspecify.annotations.Nullable;

/** The startup check: the broker answers and the topics exist (or are created), within the startup timeout. */
final class Topics {
    private static final long LEADER_POLL_MILLIS = 20;

    private Topics() {}

    /**
     * Returns the partition count of each topic.
     *
     * @throws KafkaStartupException naming the bootstrap servers when the broker does not answer in time or a topic
     *     is missing
     */
    static Map<String, Integer> require(String who, Collection<String> names, KafkaOptions options) {
        long deadline = System.nanoTime() + options.startupTimeout().toNanos();
        try (Admin admin = Admin.create(adminProperties(options))) {
            Set<String> missing = new HashSet<>(names);
            missing.removeAll(describe(admin, names, deadline).keySet());
            if (!missing.isEmpty()) {
                KafkaOptions.TopicCreation creation = options.topicCreation();
                if (creation == null) {
                    throw KafkaStartupException.missingTopics(who, options.bootstrapServers(), missing);
                }
                create(admin, missing, creation, deadline);
            }
            return ledPartitions(admin, names, deadline); // made here or just now by another instance
        } catch (TimeoutException e) {
            throw KafkaStartupException.unreachable(who, options.bootstrapServers(), options.startupTimeout(), e);
        } catch (ExecutionException e) {
            throw KafkaStartupException.failed(
                    who, options.bootstrapServers(), e.getCause() == null ? e : e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw KafkaStartupException.failed(who, options.bootstrapServers(), e);
        }
    }

    static Properties adminProperties(KafkaOptions options) {
        Properties properties = new Properties();
        properties.putAll(options.clientProperties());
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
        properties.put(AdminClientConfig.CLIENT_ID_CONFIG, options.instanceId() + "-admin");
        int timeout = (int) Math.min(Integer.MAX_VALUE, options.startupTimeout().toMillis());
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeout);
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(timeout, 30_000));
        return properties;
    }

    private static Map<String, Integer> describe(Admin admin, Collection<String> names, long deadline)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<String, KafkaFuture<TopicDescription>> futures =
                admin.describeTopics(names).topicNameValues();
        Map<String, Integer> found = new HashMap<>();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> entry : futures.entrySet()) {
            try {
                found.put(
                        entry.getKey(),
                        entry.getValue()
                                .get(remaining(deadline), TimeUnit.NANOSECONDS)
                                .partitions()
                                .size());
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException timeout) {
                        throw new TimeoutException(timeout.getMessage());
                    }
                    throw e;
                }
            }
        }
        return found;
    }

    private static void create(Admin admin, Set<String> missing, KafkaOptions.TopicCreation creation, long deadline)
            throws InterruptedException, ExecutionException, TimeoutException {
        List<NewTopic> topics = missing.stream()
                .map(name -> new NewTopic(name, creation.partitions(), creation.replicationFactor()))
                .toList();
        for (KafkaFuture<Void> created : admin.createTopics(topics).values().values()) {
            try {
                created.get(remaining(deadline), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
    }

    /**
     * The partition count of each topic, once every partition has a leader in the broker's metadata. A producer that writes to a
     * partition the broker has not opened yet gets a retriable error for its first batch while a later batch may be
     * appended; the first batch's retries then fail as out of order until its delivery timeout (KAFKA-15591, fixed in
     * brokers after 4.3): so nothing is sent to a new topic before its partitions are led. This narrows that window;
     * {@code KafkaBuses} closes it for the topics it creates by keeping one request in flight per connection.
     */
    private static Map<String, Integer> ledPartitions(Admin admin, Collection<String> names, long deadline)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<String, TopicDescription> led;
        while ((led = ifAllLed(admin, names, deadline)) == null) {
            if (remaining(deadline) <= 0) {
                throw new TimeoutException("partitions of " + names + " have no leader yet");
            }
            Thread.sleep(LEADER_POLL_MILLIS); // a broker applies new metadata within milliseconds; bounded by deadline
        }
        Map<String, Integer> partitions = new HashMap<>();
        led.forEach((name, description) ->
                partitions.put(name, description.partitions().size()));
        return partitions;
    }

    /** Null while a topic is still unknown to the broker that answers (just created) or a partition has no leader. */
    private static @Nullable Map<String, TopicDescription> ifAllLed(
            Admin admin, Collection<String> names, long deadline)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<String, TopicDescription> described;
        try {
            described = admin.describeTopics(names).allTopicNames().get(remaining(deadline), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return null;
            }
            throw e;
        }
        boolean allLed = described.values().stream()
                .flatMap(topic -> topic.partitions().stream())
                .allMatch(partition ->
                        partition.leader() != null && !partition.leader().isEmpty());
        return allLed ? described : null;
    }

    private static long remaining(long deadline) {
        return Math.max(0, deadline - System.nanoTime());
    }
}
