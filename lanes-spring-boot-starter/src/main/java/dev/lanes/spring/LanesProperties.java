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
 * @param store Where events are stored: postgres (the application's DataSource) or memory (lost at every restart).
 *     Unset: postgres when lanes-postgres is on the classpath, and then a start without a DataSource fails saying so;
 *     memory otherwise.
 * @param postgres PostgreSQL event store, snapshot store, checkpoint store and dead-letter queue over the
 *     application's DataSource.
 * @param kafka Kafka command and event buses, chosen when lanes.kafka.bootstrap-servers is set.
 * @param processors How each EventProcessor bean is fed: from the store (tracking, replay) or from the event bus.
 * @param deadlines Whether this instance fires the deadlines of its ProcessManager beans.
 */
@ConfigurationProperties("lanes")
public record LanesProperties(
        @DefaultValue("30s") Duration shutdownTimeout,
        @DefaultValue("200ms") Duration quietPeriod,
        @DefaultValue("30s") Duration startTimeout,
        @DefaultValue("30s") Duration commandTimeout,
        @DefaultValue("16384") int commandBusCapacity,
        @DefaultValue Schedulers schedulers,
        @Nullable Store store,
        @DefaultValue Postgres postgres,
        @DefaultValue Kafka kafka,
        @DefaultValue Processors processors,
        @DefaultValue Deadlines deadlines) {

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
        Objects.requireNonNull(processors, "lanes.processors");
        Objects.requireNonNull(deadlines, "lanes.deadlines");
        if (store == Store.POSTGRES && !postgres.enabled()) {
            throw new IllegalArgumentException(
                    "lanes.store: 'postgres' contradicts lanes.postgres.enabled=false; set one of them only");
        }
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
                null,
                new Postgres(
                        true,
                        true,
                        Postgres.DEFAULT_SNAPSHOT_INTERVAL,
                        Postgres.DEFAULT_SOCKET_TIMEOUT,
                        Postgres.DEFAULT_APPEND_BATCH_SIZE,
                        Postgres.DEFAULT_APPEND_BATCH_WAIT),
                new Kafka(null, null, "lanes", Lanes.DEFAULT_START_TIMEOUT, null, (short) 1, Map.of()),
                new Processors(true, Map.of(), Map.of()),
                new Deadlines(true));
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

    /** Where the auto-configured {@code Lanes} stores its events ({@code lanes.store}). */
    public enum Store {
        /** In memory: every event is lost when the process ends. An explicit choice, never a fallback. */
        MEMORY,
        /** PostgreSQL over the application's {@code DataSource} (lanes-postgres on the classpath). */
        POSTGRES
    }

    /**
     * The PostgreSQL stores over the application's {@code DataSource} (lanes-postgres on the classpath): events,
     * snapshots, tracking checkpoints and dead letters.
     *
     * @param enabled Whether lanes-postgres makes Lanes store its events in PostgreSQL; false is lanes.store=memory.
     * @param migrate Whether the Lanes schema is brought to the latest version when the store is created.
     * @param snapshotInterval Every how many versions an aggregate's snapshot is saved (a Snapshotter per aggregate),
     *     so loading one replays at most that many streams; 0 saves none.
     * @param socketTimeout How long one JDBC round trip may stay silent before the driver drops the connection and the
     *     call fails (pgjdbc's socketTimeout, whole seconds), set on the application's DataSource unless it sets its own
     *     (in the JDBC URL, spring.datasource.hikari.data-source-properties.socketTimeout, or on a PGSimpleDataSource);
     *     0 leaves the DataSource as it is.
     * @param appendBatchSize The most appends the event store writes in one transaction (group commit): appends that
     *     arrive while every connection is busy share one multi-row statement; 1 writes each alone. From 1 to 65535.
     * @param appendBatchWait How long a batch may wait to fill while another is being written (an idle store never
     *     waits); 0 never waits. At most 100ms.
     */
    public record Postgres(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("true") boolean migrate,
            @DefaultValue("100") int snapshotInterval,
            @DefaultValue("30s") Duration socketTimeout,
            @DefaultValue("64") int appendBatchSize,
            @DefaultValue("1ms") Duration appendBatchWait) {

        /** Snapshots every 100 versions unless set. */
        public static final int DEFAULT_SNAPSHOT_INTERVAL = 100;

        /** 30 seconds per JDBC round trip unless set: as long as a sender waits by default. */
        public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(30);

        /** Batches of up to 64 appends unless set (lanes-postgres' own default). */
        public static final int DEFAULT_APPEND_BATCH_SIZE = 64;

        /** A batch waits at most 1 ms to fill unless set (lanes-postgres' own default). */
        public static final Duration DEFAULT_APPEND_BATCH_WAIT = Duration.ofMillis(1);

        // a compile-time constant of lanes-postgres (inlined: this class loads without it on the classpath)
        private static final int MAX_APPEND_BATCH_SIZE = dev.lanes.postgres.PostgresOptions.MAX_APPEND_BATCH_SIZE;
        private static final Duration MAX_APPEND_BATCH_WAIT = Duration.ofMillis(100);

        /** @throws IllegalArgumentException naming the property and the value when one is negative */
        public Postgres {
            if (snapshotInterval < 0) {
                throw new IllegalArgumentException(
                        "lanes.postgres.snapshot-interval must be 0 (none) or positive: " + snapshotInterval);
            }
            Objects.requireNonNull(socketTimeout, "lanes.postgres.socket-timeout");
            if (socketTimeout.isNegative() || (!socketTimeout.isZero() && socketTimeout.toSeconds() < 1)) {
                throw new IllegalArgumentException(
                        "lanes.postgres.socket-timeout must be 0 (leave the DataSource alone) or at least 1s: "
                                + socketTimeout);
            }
            if (appendBatchSize < 1 || appendBatchSize > MAX_APPEND_BATCH_SIZE) {
                throw new IllegalArgumentException("lanes.postgres.append-batch-size must be from 1 to "
                        + MAX_APPEND_BATCH_SIZE + ": " + appendBatchSize);
            }
            Objects.requireNonNull(appendBatchWait, "lanes.postgres.append-batch-wait");
            if (appendBatchWait.isNegative() || appendBatchWait.compareTo(MAX_APPEND_BATCH_WAIT) > 0) {
                throw new IllegalArgumentException(
                        "lanes.postgres.append-batch-wait must be from 0 to 100ms: " + appendBatchWait);
            }
        }
    }

    /** How an {@code EventProcessor} bean is fed ({@code lanes.processors.feed.<name>}). */
    public enum Feed {
        /**
         * From the store, from its checkpoint in the checkpoint store (PostgreSQL): after a restart it goes on where it
         * stopped, so its read model (or its side effects) must outlive the process too. One instance of a deployment
         * reads at a time. The default of handlers and snapshotters when the store is durable.
         */
        TRACKING,
        /**
         * From the store, from position 0 at every start (checkpoint in memory): for a read model held in memory, which
         * each instance rebuilds in full. The default of projections when the store is durable.
         */
        REPLAY,
        /**
         * From the event bus: sees only what is published after it starts, and counts for {@code PROJECTED} waits. The
         * default with the in-memory store, and the only feed of sagas.
         */
        BUS
    }

    /**
     * How the {@code EventProcessor} beans are fed.
     *
     * @param healthWaitsForCatchUp Whether the lanes health indicator reports OUT_OF_SERVICE until every processor fed
     *     from the store has reached the store's head as it was at start.
     * @param feed The feed of each processor, by its name: tracking (from its checkpoint in PostgreSQL), replay (from
     *     position 0 at every start) or bus. Unset: replay for projections and tracking for other processors when the
     *     store is PostgreSQL, bus otherwise; sagas are always fed by the bus.
     * @param segments How many segments a tracking processor's stream is split into, by its name: a power of two from
     *     1 to 1024; the running instances share the segments, each with its own checkpoint and claim. Unset: 1 (one
     *     instance reads, the others stand by). Changing it for a processor that has checkpoints is refused at start,
     *     naming both counts (reset the processor first).
     */
    public record Processors(
            @DefaultValue("true") boolean healthWaitsForCatchUp,
            @DefaultValue Map<String, Feed> feed,
            @DefaultValue Map<String, Integer> segments) {
        public Processors {
            feed = feed == null ? Map.of() : Map.copyOf(feed);
            segments = segments == null ? Map.of() : Map.copyOf(segments);
        }
    }

    /**
     * The deadlines of the application's {@code ProcessManager} beans.
     *
     * @param run Whether this instance runs a deadline runner (every second, 100 at a time) over the store the process
     *     managers schedule their deadlines in, when one of them reacts to deadlines. Runners on several instances
     *     share the work: each deadline is claimed by one. Set false to fire them elsewhere, or to wire a runner of
     *     your own with a LanesBuilderCustomizer (Lanes.Builder.deadlines).
     */
    public record Deadlines(@DefaultValue("true") boolean run) {}

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
