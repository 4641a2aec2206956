package dev.lanes.spring;

import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.postgres.EventSerializer;
import dev.lanes.postgres.JacksonEventSerializer;
import dev.lanes.postgres.PostgresEventStore;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The PostgreSQL event store over the application's {@link DataSource}: when lanes-postgres is on the classpath, one
 * {@code DataSource} bean exists (or one of several is primary), {@code lanes.postgres.enabled} is not {@code false}
 * and no {@link EventStore} bean is declared. The data source stays the application's: closing the store stops only
 * its JDBC scheduler.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(PostgresEventStore.class)
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnProperty(prefix = "lanes.postgres", name = "enabled", havingValue = "true", matchIfMissing = true)
class LanesPostgresConfiguration {

    /**
     * The store, its schema migrated first when {@code lanes.postgres.migrate} (blocking, once, at context start).
     *
     * @throws RuntimeException the migration's failure (the server unreachable, the login refused), the store closed
     */
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

    @Bean
    @ConditionalOnMissingBean(EventStore.class)
    PostgresEventStore lanesPostgresEventStore(
            DataSource dataSource, LanesProperties properties, EventSerializer serializer) {
        PostgresEventStore store = new PostgresEventStore(dataSource, serializer);
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
}
