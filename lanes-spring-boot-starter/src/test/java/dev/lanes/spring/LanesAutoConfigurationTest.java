package dev.lanes.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.AccountEvent.AccountOpened;
import dev.lanes.examples.bank.BalanceProjection;
import dev.lanes.examples.bank.Bank;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.micrometer.LanesMicrometer;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.scheduler.AggregateSchedulers;
import dev.lanes.test.ForwardingEventStore;
import dev.lanes.test.logging.LogCapture;
import dev.lanes.testsupport.TestPostgres;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/** Each condition of the auto-configuration, on a context of just the bank's beans and what a test adds. */
class LanesAutoConfigurationTest {
    /** Spring warns once when a refresh fails. */
    @RegisterExtension
    final LogCapture logs = LogCapture.standardErrorFailingOnError(); // fails a test that logs at ERROR

    /** The starter's defaults: lanes-postgres is on this module's test classpath. */
    private final ApplicationContextRunner defaults = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class))
            .withUserConfiguration(BankBeans.class);

    /** Events in memory, as chosen. */
    private final ApplicationContextRunner runner = defaults.withPropertyValues("lanes.store=memory");

    @Test
    void withoutADataSourceTheStartFailsNamingWhatIsMissing() {
        defaults.run(context -> {
            assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(LanesConfigurationException.class)
                    .hasMessage("Lanes has lanes-postgres on the classpath but no single DataSource bean to store its"
                            + " events in");
            assertThat(((LanesConfigurationException) rootCause(context.getStartupFailure())).action())
                    .contains("spring-boot-starter-jdbc", "spring.datasource.url", "lanes.store=memory");
        });
    }

    @Test
    void lanesStorePostgresWithoutADataSourceFailsTooAndMemoryWithoutLanesPostgresIsTheDefault() {
        defaults.withPropertyValues("lanes.store=postgres")
                .run(context ->
                        assertThat(context).getFailure().rootCause().isInstanceOf(LanesConfigurationException.class));
        defaults.withClassLoader(new FilteredClassLoader(PostgresEventStore.class))
                .run(context -> assertThat(context.getBean(Lanes.class).eventStore())
                        .isNotInstanceOf(PostgresEventStore.class));
        defaults.withClassLoader(new FilteredClassLoader(PostgresEventStore.class))
                .withPropertyValues("lanes.store=postgres")
                .run(context -> assertThat(context)
                        .getFailure()
                        .rootCause()
                        .hasMessage("lanes.store=postgres, but lanes-postgres is not on the classpath"));
    }

    private static Throwable rootCause(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root;
    }

    @Test
    void lanesStoreMemoryRunsLanesOnTheInMemoryStore() {
        runner.run(context -> {
            Lanes lanes = context.getBean(Lanes.class);
            assertThat(lanes.runtime().state()).isEqualTo(LanesRuntime.State.RUNNING);
            assertThat(context).getBean(EventStore.class).isSameAs(lanes.eventStore());
            assertThat(context).getBean(EventStore.class).isNotInstanceOf(PostgresEventStore.class);
            assertThat(context).getBean(CommandGateway.class).isSameAs(lanes.gateway());
            assertThat(context.getBean(LanesLifecycle.class).isRunning()).isTrue();
            assertThat(lanes.eventDispatcher())
                    .as("the projection and saga beans")
                    .isPresent();
            assertThat(context).doesNotHaveBean(DispatcherMetrics.class);
        });
    }

    @Test
    void aDataSourceMakesThePostgresStoreTheEventStore() {
        defaults.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues(dataSource())
                .run(context -> {
                    Lanes lanes = context.getBean(Lanes.class);
                    assertThat(lanes.eventStore()).isInstanceOf(PostgresEventStore.class);
                    lanes.gateway()
                            .send(Bank.account("pg-1"), new OpenAccount("ada"), WaitStage.PROCESSED)
                            .block(Duration.ofSeconds(10));
                    List<DomainEventStream> stored = lanes.eventStore()
                            .load(Bank.account("pg-1"), 1)
                            .collectList()
                            .block(Duration.ofSeconds(10));
                    assertThat(stored).extracting(DomainEventStream::version).containsExactly(1);
                });
    }

    @Test
    void lanesPostgresEnabledFalseKeepsTheInMemoryStoreBesideADataSource() {
        defaults.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class))
                .withPropertyValues(dataSource())
                .withPropertyValues("lanes.postgres.enabled=false")
                .run(context -> assertThat(context.getBean(Lanes.class).eventStore())
                        .isNotInstanceOf(PostgresEventStore.class));
    }

    @Test
    void aMeterRegistryGetsTheDispatcherAndRuntimeMeters() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(context).hasSingleBean(DispatcherMetrics.class);
            // the dispatchers bound their meters when the lifecycle started them
            assertThat(registry.find(LanesMicrometer.QUEUED)
                            .tag(LanesMicrometer.DISPATCHER_TAG, Lanes.COMMAND_DISPATCHER)
                            .gauges())
                    .isNotEmpty();
            // the runtime's meters are a binder, bound by Spring Boot's metrics auto-configuration when present
            context.getBean("lanesRuntimeMetrics", MeterBinder.class).bindTo(registry);
            assertThat(registry.get(LanesMicrometer.RUNTIME_LEASES_OPEN).gauge())
                    .isNotNull();
        });
    }

    @Test
    void theApplicationsOwnBeansReplaceTheDefaults() {
        EventStore store = EventStores.inMemory();
        LanesParkingLots parking = LanesParkingLots.inMemory();
        Set<String> dispatchers = ConcurrentHashMap.newKeySet();
        runner.withBean(EventStore.class, () -> store)
                .withBean(LanesParkingLots.class, () -> parking)
                .withBean(DispatcherSchedulers.class, () -> name -> {
                    dispatchers.add(name);
                    return AggregateSchedulers.sharedPool(name, 1);
                })
                .run(context -> {
                    assertThat(context.getBean(Lanes.class).eventStore()).isSameAs(store);
                    assertThat(context).getBean(LanesParkingLots.class).isSameAs(parking);
                    assertThat(dispatchers).containsExactlyInAnyOrder(Lanes.COMMAND_DISPATCHER, Lanes.EVENT_DISPATCHER);
                });
    }

    @Test
    void sharedWorkersRunBothDispatchersOnOnePool() {
        Map<String, String> threads = new ConcurrentHashMap<>();
        // the command lane appends the account's events: the store sees the command dispatcher's thread
        EventStore recording = new ForwardingEventStore(EventStores.inMemory()) {
            @Override
            public Mono<Void> append(DomainEventStream stream) {
                threads.put("command", Thread.currentThread().getName());
                return super.append(stream);
            }
        };
        EventProcessor watcher = EventProcessor.builder("ThreadWatcher", ProcessorKind.HANDLER)
                .on(
                        Bank.ACCOUNT,
                        AccountOpened.class,
                        (opened, context) -> Mono.fromRunnable(() ->
                                threads.put("event", Thread.currentThread().getName())))
                .build();
        runner.withPropertyValues("lanes.schedulers.kind=shared-workers", "lanes.schedulers.workers=1")
                .withBean(EventStore.class, () -> recording)
                .withBean("threadWatcher", EventProcessor.class, () -> watcher)
                .run(context -> {
                    context.getBean(CommandGateway.class)
                            .send(Bank.account("w-1"), new OpenAccount("ada"), WaitStage.PROJECTED)
                            .block(Duration.ofSeconds(10));

                    assertThat(context.getBean(DispatcherSchedulers.class)).isEqualTo(new SharedWorkers(1));
                    assertThat(threads)
                            .as("the command's append and the event handler, on the one shared worker")
                            .containsEntry("command", "Workers-shared-1")
                            .containsEntry("event", "Workers-shared-1");
                });
    }

    @Test
    void customizersAdjustTheBuilderLast() {
        EventStore customized = EventStores.inMemory();
        runner.withBean(LanesBuilderCustomizer.class, () -> builder -> builder.eventStore(customized))
                .run(context ->
                        assertThat(context.getBean(Lanes.class).eventStore()).isSameAs(customized));
    }

    @Test
    void aProjectionBeanSeesTheCommandsSentThroughTheGatewayBean() {
        runner.run(context -> {
            CommandGateway gateway = context.getBean(CommandGateway.class);
            gateway.send(Bank.account("p-1"), new OpenAccount("ada"), WaitStage.PROCESSED)
                    .block(Duration.ofSeconds(10));
            gateway.send(Bank.account("p-1"), new Deposit(40), WaitStage.PROJECTED)
                    .block(Duration.ofSeconds(10));
            assertThat(context.getBean(BalanceProjection.class)
                            .rows()
                            .get("p-1")
                            .balance())
                    .isEqualTo(40);
        });
    }

    @Test
    void aReplayFeedOnTheInMemoryStoreReadsTheStoreInsteadOfTheBus() {
        runner.withPropertyValues("lanes.processors.feed.BalanceProjection=replay")
                .run(context -> {
                    assertThat(context.getBean(LanesWiring.class).details())
                            .containsEntry("processors", Map.of("BalanceProjection", "replay"));
                    context.getBean(CommandGateway.class)
                            .send(Bank.account("r-1"), new OpenAccount("ada"), WaitStage.PROCESSED)
                            .block(Duration.ofSeconds(10));
                    BalanceProjection balances = context.getBean(BalanceProjection.class);
                    await().atMost(Duration.ofSeconds(10))
                            .untilAsserted(() -> assertThat(balances.rows()).containsKey("r-1"));
                });
    }

    @Test
    void withoutAnAggregateBeanTheStartFailsSayingWhatToDeclare() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class))
                .withPropertyValues("lanes.store=memory")
                .run(context -> {
                    assertThat(context)
                            .getFailure()
                            .rootCause()
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("found no AggregateDefinition bean");
                    assertThat(logs.text()).contains("found no AggregateDefinition bean");
                });
    }

    @Test
    void anApplicationsLanesBeanTurnsTheAutoConfiguredOneOff() {
        runner.withUserConfiguration(OwnLanes.class).run(context -> {
            assertThat(context).hasSingleBean(Lanes.class);
            assertThat(context.getBean(Lanes.class).eventStore()).isSameAs(OwnLanes.STORE);
            assertThat(context.getBean(Lanes.class).runtime().state()).isEqualTo(LanesRuntime.State.RUNNING);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnLanes {
        static final EventStore STORE = EventStores.inMemory();

        @Bean
        Lanes lanes() {
            return Lanes.builder()
                    .aggregate(Bank.definition())
                    .eventStore(STORE)
                    .build();
        }
    }

    static String[] dataSource() {
        return new String[] {
            "spring.datasource.url=" + TestPostgres.emptyDatabase(), "spring.datasource.username=" + TestPostgres.USER
        };
    }
}
