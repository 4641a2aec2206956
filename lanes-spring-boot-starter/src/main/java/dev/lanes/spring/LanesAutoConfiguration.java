package dev.lanes.spring;

import dev.lanes.Lanes;
import dev.lanes.command.CommandGateway;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.event.DomainEventBus;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.process.ProcessManager;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import dev.lanes.tracing.MessageTracing;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import reactor.core.scheduler.Schedulers;

/**
 * Wires one {@link Lanes} from the application's beans and runs it with the context.
 *
 * <ul>
 *   <li>{@link AggregateDefinition} beans are the aggregates (at least one is required); {@link EventProcessor} and
 *       {@link EventProcessorFactory} beans the processors (projections, handlers, sagas);
 *   <li>the event store is an {@link EventStore} bean if the application declares one, else PostgreSQL over the
 *       application's {@code DataSource} when lanes-postgres is on the classpath, with its snapshot store (a
 *       snapshot every {@code lanes.postgres.snapshot-interval} versions), checkpoint store and dead-letter queue;
 *       without a {@code DataSource} the start fails saying what is missing, unless {@code lanes.store=memory} chose
 *       the in-memory store (also the store without lanes-postgres). A {@link SnapshotStore}, {@link
 *       CheckpointStore}, {@link DeadLetterQueue} or {@link DomainEventBus} bean is used when declared;
 *   <li>each {@link EventProcessor} bean is fed as {@code lanes.processors.feed.<name>} says: with a durable
 *       checkpoint store, projections replay the store from position 0 at every start and other processors track it
 *       from their checkpoint; with the in-memory store, the event bus feeds them (see {@link LanesProperties.Feed});
 *       processors fed from the store do not count for {@code PROJECTED} waits, and the health indicator reports
 *       {@code OUT_OF_SERVICE} until they caught up with the store's head at start;
 *   <li>the command and event buses are Kafka's when lanes-kafka is on the classpath and {@code
 *       lanes.kafka.bootstrap-servers} is set (see {@link LanesKafkaConfiguration}), else in memory;
 *   <li>dispatcher metrics go to Micrometer when a {@code MeterRegistry} is present (lanes-micrometer on the classpath),
 *       with the runtime's meters as a {@code MeterBinder} bean;
 *   <li>sends, command lanes and processors are traced with OpenTelemetry when an {@code OpenTelemetry} bean is
 *       present (lanes-opentelemetry on the classpath; see {@link LanesOpenTelemetryConfiguration}), or with a {@link
 *       MessageTracing} bean;
 *   <li>{@link DispatcherSchedulers} and {@link LanesParkingLots} come from {@code lanes.*} unless declared;
 *       {@link LanesBuilderCustomizer} beans adjust the builder last;
 *   <li>the {@link Lanes} bean is started and stopped by {@link LanesLifecycle}; the {@link CommandGateway} is a bean.
 * </ul>
 *
 * Every bean here backs off when the application declares one of its type (the {@code Lanes} bean included). The
 * store, snapshots, checkpoints, dead letters, buses, schedulers and each processor's feed are logged at INFO in one
 * line when {@code Lanes} is built, and are the health indicator's details.
 *
 * <p><b>Time.</b> {@code lanes.shutdown-timeout} is the runtime's graceful stop; Spring waits for it at most {@code
 * spring.lifecycle.timeout-per-shutdown-phase}, which must be at least as long (the start fails otherwise). A stop
 * forced at the deadline is logged at WARN with its report. The web server's graceful phase comes first and has the
 * same per-phase timeout, so a SIGTERM can take up to twice that phase timeout in all. With PostgreSQL the
 * application's {@code DataSource} gets a socket timeout ({@code lanes.postgres.socket-timeout}) unless it sets its
 * own.
 *
 * <p><b>Startup failures.</b> A {@code lanes.*} value that does not bind and a configuration Lanes cannot run with fail
 * the start through one path, {@link LanesFailureAnalyzer}: Spring Boot's report, naming the property, the value and
 * what is valid.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
            "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration"
        })
@EnableConfigurationProperties(LanesProperties.class)
@Import({
    LanesPostgresConfiguration.class,
    LanesInMemoryStoreConfiguration.class,
    LanesMicrometerConfiguration.class,
    LanesOpenTelemetryConfiguration.class,
    LanesKafkaConfiguration.class
})
public final class LanesAutoConfiguration {
    private static final Logger log = LoggerFactory.getLogger(LanesAutoConfiguration.class);

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
            case PER_TYPE, SHARED_POOL -> new ConfiguredSchedulers(settings.kind(), workers);
            case SHARED_WORKERS -> new SharedWorkers(workers);
        };
    }

    /** {@code per-type} or {@code shared-pool}, from {@code lanes.schedulers.*}. */
    record ConfiguredSchedulers(LanesProperties.SchedulerKind kind, int workers) implements DispatcherSchedulers {
        @Override
        public AggregateSchedulerSupplier create(String dispatcher) {
            return kind == LanesProperties.SchedulerKind.SHARED_POOL
                    ? AggregateSchedulers.sharedPool(dispatcher, workers)
                    : AggregateSchedulers.perType(dispatcher, workers);
        }
    }

    /** What {@code Lanes} was wired with, filled when it is built; its processors' catch-up. */
    @Bean
    @ConditionalOnMissingBean
    LanesWiring lanesWiring() {
        return new LanesWiring();
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
            ObjectProvider<MessageTracing> tracing,
            ObjectProvider<CheckpointStore> checkpoints,
            ObjectProvider<DeadLetterQueue> deadLetterQueue,
            ObjectProvider<ProcessManager<?>> processManagers,
            ObjectProvider<StoreHead> head,
            ObjectProvider<LanesBuilderCustomizer> customizers,
            DispatcherSchedulers schedulers,
            LanesParkingLots parking,
            LanesWiring wiring) {
        LanesFactory factory = new LanesFactory(
                aggregates.orderedStream().toList(),
                processors.orderedStream().toList(),
                factories.orderedStream().toList(),
                eventStore,
                snapshotStore.getIfUnique(),
                eventBus.getIfUnique(),
                metrics.getIfUnique(),
                tracing.getIfUnique(),
                checkpoints.getIfUnique(),
                deadLetterQueue.getIfUnique(),
                processManagers.orderedStream().toList(),
                customizers.orderedStream().toList());
        describe(wiring, properties, factory, schedulers);
        Lanes lanes = factory.build(properties, schedulers, parking, wiring);
        wiring.recordTargets(head.getIfUnique(() -> StoreHead.scanning(eventStore)), properties.startTimeout());
        log.info("Lanes wired: {}", wiring.summary());
        return lanes;
    }

    private static void describe(
            LanesWiring wiring, LanesProperties properties, LanesFactory factory, DispatcherSchedulers schedulers) {
        wiring.describe("store", factory.eventStore().toString());
        SnapshotStore snapshots = factory.snapshotStore();
        int interval = properties.postgres().snapshotInterval();
        wiring.describe(
                "snapshots",
                snapshots == null ? "none" : snapshots + (interval > 0 ? " every " + interval + " versions" : ""));
        wiring.describe("checkpoints", String.valueOf(orNone(factory.checkpoints())));
        wiring.describe(
                "deadLetters",
                factory.deadLetterQueue() == null ? "in memory" : String.valueOf(factory.deadLetterQueue()));
        String kafka = properties.kafka().bootstrapServers();
        boolean onKafka = kafka != null && ClassUtils.isPresent("dev.lanes.kafka.KafkaBuses", null);
        wiring.describe("commandBus", onKafka ? "kafka " + kafka : "in memory");
        DomainEventBus eventBus = factory.eventBus();
        wiring.describe("eventBus", onKafka ? "kafka " + kafka : eventBus == null ? "in memory" : eventBus.toString());
        wiring.describe("schedulers", describe(schedulers));
    }

    private static Object orNone(@Nullable Object value) {
        return value == null ? "none" : value;
    }

    private static String describe(DispatcherSchedulers schedulers) {
        if (schedulers instanceof ConfiguredSchedulers configured) {
            return LanesFactory.name(configured.kind()) + " (" + configured.workers() + " workers per pool)";
        }
        if (schedulers instanceof SharedWorkers shared) {
            return "shared-workers (" + shared.workers() + " workers)";
        }
        return "DispatcherSchedulers bean " + schedulers;
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
