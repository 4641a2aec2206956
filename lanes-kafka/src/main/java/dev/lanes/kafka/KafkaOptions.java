package dev.lanes.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * How one instance talks to Kafka. Start from {@link #of(String)} and change what you need with the withers.
 *
 * @param bootstrapServers {@code host:port[,host:port...]}
 * @param topics which topics carry what; every instance of a deployment uses the same
 * @param instanceId this instance's name in the deployment: replies to its senders are addressed to it, and it prefixes
 *     its client ids. Unique per running instance
 * @param clientProperties extra Kafka client settings (security, timeouts) given to every producer, consumer and admin
 *     client; the settings the buses rely on (serializers, manual commits, group ids) cannot be overridden
 * @param startupTimeout how long start waits for the broker and the topics before it fails, naming the servers
 * @param pollTimeout the longest a consumer waits in one poll when it has nothing else to do
 * @param commitInterval how often a consumer commits the offsets its partitions settled
 * @param revokeTimeout how long a consumer that loses partitions in a rebalance waits for their records in flight to
 *     settle before it commits and lets go (what is still in flight then is redelivered to the new owner)
 * @param maxUnsettledPerPartition records of one partition in the lanes and not settled, at which the partition is
 *     paused (only that partition)
 * @param maxBufferedPerPartition records of one partition fetched and not yet handed to a lane, at which it is paused
 * @param topicCreation the topics to create at start when missing, or {@code null} when they must exist
 */
public record KafkaOptions(
        String bootstrapServers,
        TopicNaming topics,
        String instanceId,
        Map<String, String> clientProperties,
        Duration startupTimeout,
        Duration pollTimeout,
        Duration commitInterval,
        Duration revokeTimeout,
        int maxUnsettledPerPartition,
        int maxBufferedPerPartition,
        @Nullable TopicCreation topicCreation) {

    /**
     * Topics created at start when missing.
     *
     * @param partitions partitions per topic: at least the number of instances that should share the work
     */
    public record TopicCreation(int partitions, short replicationFactor) {
        public TopicCreation {
            Checks.positive(partitions, "partitions");
            Checks.positive(replicationFactor, "replicationFactor");
        }
    }

    public KafkaOptions {
        Checks.notBlank(bootstrapServers, "bootstrapServers");
        Objects.requireNonNull(topics, "topics");
        Checks.notBlank(instanceId, "instanceId");
        clientProperties = Map.copyOf(clientProperties);
        Checks.positive(startupTimeout, "startupTimeout");
        Checks.positive(pollTimeout, "pollTimeout");
        Checks.positive(commitInterval, "commitInterval");
        Checks.positive(revokeTimeout, "revokeTimeout");
        Checks.positive(maxUnsettledPerPartition, "maxUnsettledPerPartition");
        Checks.positive(maxBufferedPerPartition, "maxBufferedPerPartition");
    }

    /**
     * Topics {@code lanes.<context>.commands|events} and {@code lanes.replies} (which must exist), a random instance
     * id, 30 s to start, polls of at most 100 ms, commits every 200 ms, 10 s for a revoked partition to drain, 1,024
     * unsettled or 1,000 buffered records per partition before it pauses.
     */
    public static KafkaOptions of(String bootstrapServers) {
        return new KafkaOptions(
                bootstrapServers,
                TopicNaming.perContext("lanes"),
                "lanes-" + UUID.randomUUID().toString().substring(0, 8),
                Map.of(),
                Duration.ofSeconds(30),
                Duration.ofMillis(100),
                Duration.ofMillis(200),
                Duration.ofSeconds(10),
                1024,
                1000,
                null);
    }

    public KafkaOptions withTopics(TopicNaming topics) {
        return new KafkaOptions(
                bootstrapServers,
                topics,
                instanceId,
                clientProperties,
                startupTimeout,
                pollTimeout,
                commitInterval,
                revokeTimeout,
                maxUnsettledPerPartition,
                maxBufferedPerPartition,
                topicCreation);
    }

    public KafkaOptions withInstanceId(String instanceId) {
        return new KafkaOptions(
                bootstrapServers,
                topics,
                instanceId,
                clientProperties,
                startupTimeout,
                pollTimeout,
                commitInterval,
                revokeTimeout,
                maxUnsettledPerPartition,
                maxBufferedPerPartition,
                topicCreation);
    }

    /** Adds one client setting (e.g. {@code security.protocol}). */
    public KafkaOptions withClientProperty(String name, String value) {
        Map<String, String> copy = new HashMap<>(clientProperties);
        copy.put(Checks.notBlank(name, "name"), Objects.requireNonNull(value, "value"));
        return new KafkaOptions(
                bootstrapServers,
                topics,
                instanceId,
                copy,
                startupTimeout,
                pollTimeout,
                commitInterval,
                revokeTimeout,
                maxUnsettledPerPartition,
                maxBufferedPerPartition,
                topicCreation);
    }

    public KafkaOptions withStartupTimeout(Duration startupTimeout) {
        return new KafkaOptions(
                bootstrapServers,
                topics,
                instanceId,
                clientProperties,
                startupTimeout,
                pollTimeout,
                commitInterval,
                revokeTimeout,
                maxUnsettledPerPartition,
                maxBufferedPerPartition,
                topicCreation);
    }

    public KafkaOptions withCommitInterval(Duration commitInterval) {
        return new KafkaOptions(
                bootstrapServers,
                topics,
                instanceId,
                clientProperties,
                startupTimeout,
                pollTimeout,
                commitInterval,
                revokeTimeout,
                maxUnsettledPerPartition,
                maxBufferedPerPartition,
                topicCreation);
    }

    public KafkaOptions withRevokeTimeout(Duration revokeTimeout) {
        return new KafkaOptions(
                bootstrapServers,
                topics,
                instanceId,
                clientProperties,
                startupTimeout,
                pollTimeout,
                commitInterval,
                revokeTimeout,
                maxUnsettledPerPartition,
                maxBufferedPerPartition,
                topicCreation);
    }

    public KafkaOptions withPartitionBounds(int maxUnsettledPerPartition, int maxBufferedPerPartition) {
        return new KafkaOptions(
                bootstrapServers,
                topics,
                instanceId,
                clientProperties,
                startupTimeout,
                pollTimeout,
                commitInterval,
                revokeTimeout,
                maxUnsettledPerPartition,
                maxBufferedPerPartition,
                topicCreation);
    }

    /** Creates missing topics at start with {@code partitions} partitions each (tests, demos, development). */
    public KafkaOptions withTopicCreation(int partitions, short replicationFactor) {
        return new KafkaOptions(
                bootstrapServers,
                topics,
                instanceId,
                clientProperties,
                startupTimeout,
                pollTimeout,
                commitInterval,
                revokeTimeout,
                maxUnsettledPerPartition,
                maxBufferedPerPartition,
                new TopicCreation(partitions, replicationFactor));
    }
}
