package dev.lanes.spring;

import dev.lanes.Lanes;
import dev.lanes.command.CommandGateway;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.event.DomainEventBus;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.processing.EventProcessor;
import dev.lanes.scheduler.AggregateSchedulers;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import reactor.core.scheduler.Schedulers;

/**
 * Wires one {@link Lanes} from the application's beans and runs it with the context.
 *
 * <ul>
 *   <li>{@link AggregateDefinition} beans are the aggregates (at least one is required); {@link EventProcessor} and
 *       {@link EventProcessorFactory} beans the processors (projections, handlers, sagas);
 *   <li>the event store is an {@link EventStore} bean if the application declares one, else PostgreSQL over the
 *       application's {@code DataSource} (lanes-postgres on the classpath, {@code lanes.postgres.enabled}), else in
 *       memory; a {@link SnapshotStore} or {@link DomainEventBus} bean is used when declared;
 *   <li>the command and event buses are Kafka's when lanes-kafka is on the classpath and {@code
 *       lanes.kafka.bootstrap-servers} is set (see {@link LanesKafkaConfiguration}), else in memory;
 *   <li>dispatcher metrics go to Micrometer when a {@code MeterRegistry} is present (lanes-micrometer on the classpath),
 *       with the runtime's meters as a {@code MeterBinder} bean;
 *   <li>{@link DispatcherSchedulers} and {@link LanesParkingLots} come from {@code lanes.*} unless declared;
 *       {@link LanesBuilderCustomizer} beans adjust the builder last;
 *   <li>the {@link Lanes} bean is started and stopped by {@link LanesLifecycle}; the {@link CommandGateway} is a bean.
 * </ul>
 *
 * Every bean here backs off when the application declares one of its type (the {@code Lanes} bean included).
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
        })
@EnableConfigurationProperties(LanesProperties.class)
@Import({
    LanesPostgresConfiguration.class,
    LanesInMemoryStoreConfiguration.class,
    LanesMicrometerConfiguration.class,
    LanesKafkaConfiguration.class
})
public final class LanesAutoConfiguration {
    /** Spring Boot's property for how long one lifecycle phase may take to stop, and its default. */
    static final String SHUTDOWN_PHASE_PROPERTY = "spring.lifecycle.timeout-per-shutdown-phase";

    static final Duration DEFAULT_SHUTDOWN_PHASE = Duration.ofSeconds(30);

    @Bean
    @ConditionalOnMissingBean
    DispatcherSchedulers lanesDispatcherSchedulers(LanesProperties properties) {
        LanesProperties.Schedulers settings = properties.schedulers();
        Integer configured = settings.workers();
        int workers = configured != null ? configured : Schedulers.DEFAULT_POOL_SIZE;
        return switch (settings.kind()) {
            case PER_TYPE -> name -> AggregateSchedulers.perType(name, workers);
            case SHARED_POOL -> name -> AggregateSchedulers.sharedPool(name, workers);
            case SHARED_WORKERS -> new SharedWorkers(workers);
        };
    }

    @Bean
    @ConditionalOnMissingBean
    LanesParkingLots lanesParkingLots() {
        return LanesParkingLots.inMemory();
    }

    /**
     * Built, not started: {@link LanesLifecycle} starts and stops it, so the bean has no destroy method (a second stop
     * at destruction would only repeat the outcome of the first, a forced one as an exception). Building starts no
     * thread: a context that fails before the lifecycle started it leaves nothing running.
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    Lanes lanes(
            LanesProperties properties,
            ObjectProvider<AggregateDefinition<?>> aggregates,
            ObjectProvider<EventProcessor> processors,
            ObjectProvider<EventProcessorFactory> factories,
            EventStore eventStore,
            ObjectProvider<SnapshotStore> snapshotStore,
            ObjectProvider<DomainEventBus> eventBus,
            ObjectProvider<DispatcherMetrics> metrics,
            ObjectProvider<LanesBuilderCustomizer> customizers,
            DispatcherSchedulers schedulers,
            LanesParkingLots parking) {
        LanesFactory factory = new LanesFactory(
                aggregates.orderedStream().toList(),
                processors.orderedStream().toList(),
                factories.orderedStream().toList(),
                eventStore,
                snapshotStore.getIfUnique(),
                eventBus.getIfUnique(),
                metrics.getIfUnique(),
                customizers.orderedStream().toList());
        return factory.build(properties, schedulers, parking);
    }

    @Bean
    @ConditionalOnMissingBean
    LanesLifecycle lanesLifecycle(Lanes lanes, LanesProperties properties, Environment environment) {
        Duration phase = Binder.get(environment)
                .bind(SHUTDOWN_PHASE_PROPERTY, Duration.class)
                .orElse(DEFAULT_SHUTDOWN_PHASE);
        return new LanesLifecycle(
                lanes,
                properties.startTimeout(),
                LanesLifecycle.requireWithinPhase(properties.shutdownTimeout(), phase));
    }

    @Bean
    @ConditionalOnMissingBean
    CommandGateway lanesCommandGateway(Lanes lanes) {
        return lanes.gateway();
    }
}
