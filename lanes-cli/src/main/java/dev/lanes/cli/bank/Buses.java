package dev.lanes.cli.bank;

import dev.lanes.eventsourcing.PayloadCodec;
import dev.lanes.kafka.KafkaBuses;
import dev.lanes.kafka.KafkaOptions;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Which buses a bank run uses, and how many instances share them.
 *
 * @param kind {@code memory} or {@code kafka}, as the option takes it
 * @param instances how many Lanes instances run in this process (1 with the in-memory buses)
 * @param description for the report's setup line
 * @param kafka the options every instance's Kafka connection starts from (its instance id is added), with {@code
 *     kafka}
 */
public record Buses(
        String kind,
        int instances,
        String description,
        @Nullable KafkaOptions kafka) {

    public Buses {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(description, "description");
        if (instances < 1) {
            throw new IllegalArgumentException("instances must be positive: " + instances);
        }
        if (kafka == null && instances != 1) {
            throw new IllegalArgumentException(
                    "instances must be 1 with the in-memory buses (they live in one instance): " + instances);
        }
    }

    /** The in-memory command and event buses of one instance. */
    public static Buses memory() {
        return new Buses("memory", 1, "in-memory command bus and event bus", null);
    }

    /** Kafka buses for {@code instances} instances. */
    public static Buses kafka(KafkaOptions options, int instances) {
        return new Buses(
                "kafka",
                instances,
                "Kafka command bus and event bus at " + options.bootstrapServers() + " (topics "
                        + options.topics().commands(dev.lanes.examples.bank.Bank.ACCOUNT) + ", ...), "
                        + instances + " instance(s)",
                options);
    }

    /**
     * Whether a send on these buses returns without blocking: the in-memory bus's does; a Kafka producer's may wait for
     * room in its buffer or for metadata.
     */
    boolean sendsWithoutBlocking() {
        return kafka == null;
    }

    /**
     * A new connection for instance {@code index} (0-based), sending events with {@code codec} (the store's), or null
     * for the in-memory buses.
     */
    @Nullable
    KafkaBuses connect(int index, PayloadCodec codec) {
        KafkaOptions options = kafka;
        return options == null
                ? null
                : KafkaBuses.create(options.withInstanceId(options.instanceId() + "-" + (index + 1)), codec);
    }
}
