package dev.lanes.spring;

import dev.lanes.deadline.DeadlineStore;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.postgres.EventSerializer;
import dev.lanes.postgres.JacksonEventSerializer;
import dev.lanes.postgres.PostgresCheckpointStore;
import dev.lanes.postgres.PostgresDeadLetterQueue;
import dev.lanes.postgres.PostgresDeadlineStore;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.postgres.PostgresOptions;
import dev.lanes.postgres.PostgresSnapshotStore;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * PostgreSQL over the application's {@link DataSource}, when lanes-postgres is on the classpath, one {@code DataSource}
 * bean exists (or one of several is primary) and neither {@code lanes.store=memory} nor {@code
 * lanes.postgres.enabled=false} opts out: the event store (unless an {@link EventStore} bean is declared), and over it
 * the snapshot store, the tracking processors' checkpoint store and the dead-letter queue (each unless declared), so
 * that nothing Lanes keeps is lost with the process. The data source stays the application's: closing the stores
 * stops only their JDBC schedulers. The data source gets a socket timeout unless it has one ({@link
 * LanesDataSourceTimeouts}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(PostgresEventStore.class)
@ConditionalOnSingleCandidate(DataSource.class)
@Conditional(LanesStoreChoice.PostgresWanted.class)
class LanesPostgresConfiguration {

    /** Before the data source is initialised: its pool is not started yet, so its settings can still change. */
    @Bean
    static LanesDataSourceTimeouts lanesDataSourceTimeouts(Environment environment) {
        return new LanesDataSourceTimeouts(environment);
    }

    /**
     * The codec of the event payloads, with the application's {@link EventTypes} bean if it declares one (else class
     * names): the store writes and reads events with it, and so does the Kafka event bus ({@link
     * LanesKafkaConfiguration}), so both carry the same type names and read through the same upcasters.
     */
    @Bean
    @ConditionalOnMissingBean(EventSerializer.class)
    JacksonEventSerializer lanesEventSerializer(ObjectProvider<EventTypes> types) {
        return new JacksonEventSerializer(
                JacksonEventSerializer.defaultObjectMapper(), types.getIfAvailable(() -> EventTypes.NONE));
    }

    /**
     * The store, its schema migrated first when {@code lanes.postgres.migrate} (blocking, once, at context start).
     *
     * @throws RuntimeException the migration's failure (the server unreachable, the login refused), the store closed
     */
    @Bean
    @ConditionalOnMissingBean(EventStore.class)
    PostgresEventStore lanesPostgresEventStore(
            DataSource dataSource, LanesProperties properties, EventSerializer serializer) {
        LanesProperties.Postgres postgres = properties.postgres();
        PostgresEventStore store = new PostgresEventStore(
                dataSource,
                serializer,
                PostgresOptions.sizedFor(dataSource)
                        .withAppendBatching(postgres.appendBatchSize(), postgres.appendBatchWait()));
        if (properties.postgres().migrate()) {
            try {
                store.migrate();
            } catch (RuntimeException e) {
                store.close();
                throw e;
            }
        }
        return store;
    }

    /** Snapshots over the store's pool and serializer: an aggregate loads from its latest snapshot. */
    @Bean
    @ConditionalOnBean(PostgresEventStore.class)
    @ConditionalOnMissingBean(SnapshotStore.class)
    PostgresSnapshotStore lanesPostgresSnapshotStore(PostgresEventStore store) {
        return store.snapshotStore();
    }

    /**
     * Where process managers schedule their deadlines (build them with this bean): claimed by one runner across the
     * instances, kept across restarts.
     */
    @Bean
    @ConditionalOnBean(PostgresEventStore.class)
    @ConditionalOnMissingBean(DeadlineStore.class)
    PostgresDeadlineStore lanesPostgresDeadlineStore(PostgresEventStore store) {
        return store.deadlineStore();
    }

    /** Where {@code tracking} processors keep their checkpoints and claims. */
    @Bean
    @ConditionalOnBean(PostgresEventStore.class)
    @ConditionalOnMissingBean(CheckpointStore.class)
    PostgresCheckpointStore lanesPostgresCheckpointStore(PostgresEventStore store) {
        return store.checkpointStore();
    }

    /** Where processors park what they could not handle, kept as long as the checkpoints; loaded now (blocking). */
    @Bean
    @ConditionalOnBean(PostgresEventStore.class)
    @ConditionalOnMissingBean(DeadLetterQueue.class)
    PostgresDeadLetterQueue lanesPostgresDeadLetterQueue(PostgresEventStore store, EventSerializer serializer) {
        return PostgresDeadLetterQueue.open(store.dataSource(), serializer);
    }

    /** The store's head in one query, for the health indicator's catch-up. */
    @Bean
    @ConditionalOnBean(PostgresEventStore.class)
    @ConditionalOnMissingBean
    StoreHead lanesStoreHead(PostgresEventStore store) {
        return store::lastPosition;
    }
}
