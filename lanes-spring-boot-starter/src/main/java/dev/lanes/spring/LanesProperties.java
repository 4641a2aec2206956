package dev.lanes.spring;

import dev.lanes.Lanes;
import dev.lanes.command.CommandBuses;
import dev.lanes.command.CommandResults;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code lanes.*} settings of the auto-configured {@link Lanes}. Every value is checked when it is bound: one out of
 * range fails the application's start with a message that names the property and the value.
 *
 * <p>The parameter descriptions below are the properties' descriptions in the configuration metadata, so they are plain
 * text.
 *
 * @param shutdownTimeout Deadline of the runtime's graceful stop, after which it forces what is left. Keep
 *     spring.lifecycle.timeout-per-shutdown-phase at least this long: a longer one fails the start, as Spring would
 *     stop waiting first.
 * @param quietPeriod How long no activity lease may be open, once stopping, before admission closes (a saga's tail
 *     commands are still admitted meanwhile). Shorter than the shutdown timeout.
 * @param startTimeout How long the application's start waits for every Lanes component to be prepared and started.
 * @param commandTimeout How long a sender waits for its command when it names no timeout.
 * @param commandBusCapacity New commands the in-memory command bus holds per aggregate type before a send fails fast,
 *     1 to 2^30.
 * @param schedulers Scheduler suppliers of the command and event dispatchers.
 * @param postgres PostgreSQL event store, chosen when the application has a DataSource.
 * @param kafka Kafka command and event buses, chosen when lanes.kafka.bootstrap-servers is set.
 */
@ConfigurationProperties("lanes")
public record LanesProperties(
        @DefaultValue("30s") Duration shutdownTimeout,
        @DefaultValue("200ms") Duration quietPeriod,
        @DefaultValue("30s") Duration startTimeout,
        @DefaultValue("30s") Duration commandTimeout,
        @DefaultValue("16384") int commandBusCapacity,
        @DefaultValue Schedulers schedulers,
        @DefaultValue Postgres postgres,
        @DefaultValue Kafka kafka) {

    /** The largest {@code lanes.command-bus-capacity}: 2^30, as the command bus allows. */
    static final int MAX_COMMAND_BUS_CAPACITY = 1 << 30;

    /**
     * @throws IllegalArgumentException naming the property and the value when a duration is not positive, the quiet
     *     period is not shorter than the shutdown timeout, or the command bus capacity is outside {@code [1, 2^30]}
     */
    public LanesProperties {
        requirePositive("lanes.shutdown-timeout", shutdownTimeout);
        Objects.requireNonNull(quietPeriod, "lanes.quiet-period");
        if (quietPeriod.isNegative() || quietPeriod.compareTo(shutdownTimeout) >= 0) {
            throw new IllegalArgumentException("lanes.quiet-period must be at least 0 and shorter than"
                    + " lanes.shutdown-timeout (" + shutdownTimeout + "): " + quietPeriod);
        }
        requirePositive("lanes.start-timeout", startTimeout);
        requirePositive("lanes.command-timeout", commandTimeout);
        if (commandBusCapacity < 1 || commandBusCapacity > MAX_COMMAND_BUS_CAPACITY) {
            throw new IllegalArgumentException(
                    "lanes.command-bus-capacity must be within [1, 2^30]: " + commandBusCapacity);
        }
        Objects.requireNonNull(schedulers, "lanes.schedulers");
        Objects.requireNonNull(postgres, "lanes.postgres");
        Objects.requireNonNull(kafka, "lanes.kafka");
    }

    /** Every default, as an application without {@code lanes.*} properties gets them. */
    public static LanesProperties defaults() {
        return new LanesProperties(
                Lanes.DEFAULT_SHUTDOWN_TIMEOUT,
                Lanes.DEFAULT_QUIET_PERIOD,
                Lanes.DEFAULT_START_TIMEOUT,
                CommandResults.DEFAULT_TIMEOUT,
                CommandBuses.DEFAULT_CAPACITY_PER_TYPE,
                new Schedulers(SchedulerKind.PER_TYPE, null),
                new Postgres(true, true),
                new Kafka(null, null, "lanes", Lanes.DEFAULT_START_TIMEOUT, null, (short) 1, Map.of()));
    }

    private static void requirePositive(String property, @Nullable Duration value) {
        Objects.requireNonNull(value, property);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(property + " must be positive: " + value);
        }
    }

    /** How the dispatchers' worker threads are organised. */
    public enum SchedulerKind {
        /** A pool of its own per aggregate type ({@code AggregateSchedulers.perType}). */
        PER_TYPE,
        /** One pool per dispatcher that every aggregate type shares ({@code AggregateSchedulers.sharedPool}). */
        SHARED_POOL,
        /**
         * One pool for both dispatchers ({@code Lanes.Builder.sharedWorkers}): fewest threads, but a slow event handler
         * holds a worker the command lanes could use.
         */
        SHARED_WORKERS
    }

    /**
     * The scheduler supplier each dispatcher gets, unless a {@link DispatcherSchedulers} bean is declared.
     *
     * @param kind A pool per aggregate type (per-type), one pool per dispatcher that the types share (shared-pool), or
     *     one pool for both dispatchers (shared-workers).
     * @param workers Threads per pool. Unset: the number of CPUs (Reactor's default pool size).
     */
    public record Schedulers(
            @DefaultValue("per-type") SchedulerKind kind,
            @Nullable Integer workers) {
        /** @throws IllegalArgumentException naming the property and the value when {@code workers} is not positive */
        public Schedulers {
            Objects.requireNonNull(kind, "lanes.schedulers.kind");
            if (workers != null && workers < 1) {
                throw new IllegalArgumentException("lanes.schedulers.workers must be positive: " + workers);
            }
        }
    }

    /**
     * The PostgreSQL event store over the application's {@code DataSource} (lanes-postgres on the classpath).
     *
     * @param enabled Whether a DataSource makes Lanes store its events in PostgreSQL; false keeps the in-memory store.
     * @param migrate Whether the Lanes schema is brought to the latest version when the store is created.
     */
    public record Postgres(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("true") boolean migrate) {}

    /**
     * The Kafka command and event buses (lanes-kafka on the classpath): set the bootstrap servers and every instance
     * of the deployment takes its share of the commands and events from Kafka.
     *
     * @param bootstrapServers Kafka servers, host:port[,host:port...]. Set, with lanes-kafka on the classpath, Lanes
     *     takes its commands and events from Kafka instead of the in-memory buses.
     * @param instanceId This instance's name in the deployment: replies to its senders are addressed to it. Unset:
     *     lanes- and a random suffix.
     * @param topicPrefix Prefix of the topic and consumer group names: prefix.context.commands, prefix.context.events,
     *     prefix.replies. The same on every instance of a deployment.
     * @param startupTimeout How long the start waits for the broker and the topics before it fails, naming the servers.
     * @param topicPartitions Partitions of the topics created at start when missing (tests, demos, development).
     *     Unset: the topics must exist.
     * @param topicReplicationFactor Replication factor of the topics created at start when missing.
     * @param clientProperties Extra Kafka client settings (security, timeouts) given to every producer, consumer and
     *     admin client.
     */
    public record Kafka(
            @Nullable String bootstrapServers,
            @Nullable String instanceId,
            @DefaultValue("lanes") String topicPrefix,
            @DefaultValue("30s") Duration startupTimeout,
            @Nullable Integer topicPartitions,
            @DefaultValue("1") short topicReplicationFactor,
            @DefaultValue Map<String, String> clientProperties) {

        /**
         * @throws IllegalArgumentException naming the property and the value when a name is blank, the startup timeout
         *     is not positive, or the partitions or replication factor are below 1
         */
        public Kafka {
            requireNotBlank("lanes.kafka.bootstrap-servers", bootstrapServers);
            requireNotBlank("lanes.kafka.instance-id", instanceId);
            Objects.requireNonNull(topicPrefix, "lanes.kafka.topic-prefix");
            requireNotBlank("lanes.kafka.topic-prefix", topicPrefix);
            requirePositive("lanes.kafka.startup-timeout", startupTimeout);
            if (topicPartitions != null && topicPartitions < 1) {
                throw new IllegalArgumentException("lanes.kafka.topic-partitions must be positive: " + topicPartitions);
            }
            if (topicReplicationFactor < 1) {
                throw new IllegalArgumentException(
                        "lanes.kafka.topic-replication-factor must be positive: " + topicReplicationFactor);
            }
            clientProperties = clientProperties == null ? Map.of() : Map.copyOf(clientProperties);
        }

        private static void requireNotBlank(String property, @Nullable String value) {
            if (value != null && value.isBlank()) {
                throw new IllegalArgumentException(property + " must not be blank when set: '" + value + "'");
            }
        }
    }
}
