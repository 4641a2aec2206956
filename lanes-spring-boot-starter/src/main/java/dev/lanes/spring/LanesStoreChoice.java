package dev.lanes.spring;

import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * Which event store the application asked for: PostgreSQL unless {@code lanes.store=memory} or {@code
 * lanes.postgres.enabled=false}, when lanes-postgres is on the classpath. Read from the environment as text, so a
 * condition never fails on a bad value: binding {@link LanesProperties} reports it.
 */
final class LanesStoreChoice {
    static final String POSTGRES_STORE = "dev.lanes.postgres.PostgresEventStore";

    private LanesStoreChoice() {}

    /** Whether lanes-postgres is on the classpath. */
    static boolean postgresPresent(@Nullable ClassLoader classLoader) {
        return ClassUtils.isPresent(POSTGRES_STORE, classLoader);
    }

    /** Whether the environment opts out of PostgreSQL ({@code lanes.store=memory}, {@code lanes.postgres.enabled=false}). */
    static boolean memoryChosen(Environment environment) {
        String store = environment.getProperty("lanes.store");
        String enabled = environment.getProperty("lanes.postgres.enabled");
        return (store != null && store.trim().toLowerCase(Locale.ROOT).equals("memory"))
                || (enabled != null && enabled.trim().equalsIgnoreCase("false"));
    }

    /**
     * The in-memory store is about to be made because no other is declared: refused unless the application chose it.
     *
     * @throws LanesConfigurationException naming what is missing when the application asked for PostgreSQL, or has
     *     lanes-postgres on its classpath and did not opt out
     */
    static void requireMemoryAllowed(LanesProperties properties, @Nullable ClassLoader classLoader) {
        LanesProperties.Store store = properties.store();
        boolean present = postgresPresent(classLoader);
        if (store == LanesProperties.Store.POSTGRES && !present) {
            throw new LanesConfigurationException(
                    "lanes.store=postgres, but lanes-postgres is not on the classpath",
                    "Add the dev.lanes:lanes-postgres dependency, or set lanes.store=memory to keep the events in memory"
                            + " (lost at every restart).");
        }
        if (store == LanesProperties.Store.MEMORY || !properties.postgres().enabled() || (store == null && !present)) {
            return;
        }
        throw new LanesConfigurationException(
                "Lanes has lanes-postgres on the classpath but no single DataSource bean to store its events in",
                "Add spring-boot-starter-jdbc and set spring.datasource.url (or declare a DataSource bean, one @Primary"
                        + " among several), or set lanes.store=memory to keep the events in memory (lost at every"
                        + " restart).");
    }

    /** Matches unless the environment opts out of PostgreSQL. */
    static final class PostgresWanted implements Condition {
        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return !memoryChosen(context.getEnvironment());
        }
    }
}
