package dev.lanes.kafka;

import dev.lanes.api.NonRecoverableException;
import java.time.Duration;
import java.util.Collection;
import java.util.TreeSet;

/** Start could not reach the broker, or a topic the buses need does not exist: one error naming the servers. */
public final class KafkaStartupException extends NonRecoverableException {
    private static final long serialVersionUID = 1L;

    private KafkaStartupException(String message, Throwable cause) {
        super(message, cause);
    }

    private KafkaStartupException(String message) {
        super(message);
    }

    static KafkaStartupException unreachable(String who, String bootstrapServers, Duration waited, Throwable cause) {
        return new KafkaStartupException(
                who + " could not reach Kafka at " + bootstrapServers + " within " + waited + ": " + cause, cause);
    }

    static KafkaStartupException missingTopics(String who, String bootstrapServers, Collection<String> topics) {
        return new KafkaStartupException(
                who + ": Kafka at " + bootstrapServers + " has no topic " + new TreeSet<>(topics)
                        + "; create them (with at least as many partitions as instances that share the work), or let the"
                        + " buses create them with KafkaOptions.withTopicCreation");
    }

    static KafkaStartupException failed(String who, String bootstrapServers, Throwable cause) {
        return new KafkaStartupException(
                who + " could not check its topics on Kafka at " + bootstrapServers + ": " + cause, cause);
    }
}
