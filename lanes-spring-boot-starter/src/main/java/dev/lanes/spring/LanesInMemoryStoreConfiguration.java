package dev.lanes.spring;

import dev.lanes.deadline.DeadlineStore;
import dev.lanes.deadline.DeadlineStores;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The in-memory event store, when neither the application nor {@link LanesPostgresConfiguration} declared one: it is
 * imported after that configuration, so its condition sees the PostgreSQL store. Its streams live as long as the
 * application. Never a silent fallback: with lanes-postgres on the classpath (or {@code lanes.store=postgres}) the
 * start fails instead, naming what is missing, unless {@code lanes.store=memory} chose it.
 */
@Configuration(proxyBeanMethods = false)
class LanesInMemoryStoreConfiguration {

    @Bean
    @ConditionalOnMissingBean(EventStore.class)
    EventStore lanesInMemoryEventStore(LanesProperties properties, ApplicationContext context) {
        LanesStoreChoice.requireMemoryAllowed(properties, context.getClassLoader());
        return EventStores.inMemory();
    }

    /**
     * Deadlines in memory, when no other {@link DeadlineStore} was declared (with lanes-postgres and a DataSource the
     * PostgreSQL one is): lost at a restart. Build process managers with this bean; the wiring line names it.
     */
    @Bean
    @ConditionalOnMissingBean(DeadlineStore.class)
    DeadlineStore lanesInMemoryDeadlineStore() {
        return DeadlineStores.inMemory();
    }
}
