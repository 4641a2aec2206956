package dev.lanes.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.lanes.Lanes;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.Snapshot;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.Bank;
import dev.lanes.micrometer.LanesMicrometer;
import dev.lanes.postgres.PostgresCheckpointStore;
import dev.lanes.postgres.PostgresDeadLetterQueue;
import dev.lanes.postgres.PostgresEventStore;
import dev.lanes.postgres.PostgresOptions;
import dev.lanes.postgres.PostgresSnapshotStore;
import dev.lanes.postgres.PostgresUnavailableException;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.tracking.TrackingProcessor;
import dev.lanes.test.logging.LogCapture;
import dev.lanes.testsupport.TestPostgres;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.event.Level;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

/** With a DataSource, nothing Lanes keeps is lost with the process, and what was chosen is said at start and in health. */
class LanesPostgresWiringTest {
    private static final Duration WAIT = Duration.ofSeconds(15);

    /** The INFO line at start, and Spring's warnings. */
    @RegisterExtension
    final LogCapture logs = LogCapture.standardErrorFailingOnError(); // fails a test that logs at ERROR

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    LanesAutoConfiguration.class,
                    LanesHealthAutoConfiguration.class))
            .withUserConfiguration(BankBeans.class)
            .withPropertyValues("lanes.shutdown-timeout=10s");

    @Test
    void aDataSourceWiresTheSnapshotCheckpointAndDeadLetterStoresInPostgresAndSaysSo() {
        runner.withPropertyValues(database()).run(context -> {
            assertThat(context).getBean(SnapshotStore.class).isInstanceOf(PostgresSnapshotStore.class);
            assertThat(context).getBean(CheckpointStore.class).isInstanceOf(PostgresCheckpointStore.class);
            assertThat(context).getBean(DeadLetterQueue.class).isInstanceOf(PostgresDeadLetterQueue.class);

            Health health = context.getBean(LanesHealthIndicator.class).health();
            assertThat(health.getDetails())
                    .hasEntrySatisfying(
                            "store", store -> assertThat(store.toString()).startsWith("PostgresEventStore["))
                    .hasEntrySatisfying(
                            "snapshots", value -> assertThat(value.toString()).endsWith(" every 100 versions"))
                    .hasEntrySatisfying(
                            "checkpoints", value -> assertThat(value.toString()).startsWith("PostgresCheckpointStore"))
                    .hasEntrySatisfying(
                            "deadLetters", value -> assertThat(value.toString()).startsWith("PostgresDeadLetterQueue"))
                    .containsEntry("commandBus", "in memory")
                    .containsEntry("eventBus", "in memory")
                    .hasEntrySatisfying(
                            "schedulers", value -> assertThat(value.toString()).startsWith("per-type ("))
                    .containsEntry(
                            "processors", Map.of("BalanceProjection", "replay", "Snapshotter-bank.account", "bus"));
            assertThat(logs.lines(Level.INFO))
                    .filteredOn(line -> line.logger().endsWith("LanesAutoConfiguration"))
                    .singleElement()
                    .satisfies(line -> assertThat(line.message())
                            .startsWith("Lanes wired: store=PostgresEventStore[")
                            .contains("checkpoints=PostgresCheckpointStore", "deadLetters=PostgresDeadLetterQueue")
                            .contains("processors={BalanceProjection=replay, Snapshotter-bank.account=bus}"));
        });
    }

    @Test
    void anAggregateIsSnapshotEverySnapshotIntervalVersions() {
        runner.withPropertyValues(database())
                .withPropertyValues("lanes.postgres.snapshot-interval=2")
                .run(context -> {
                    CommandGateway gateway = context.getBean(CommandGateway.class);
                    gateway.send(Bank.account("s-1"), new OpenAccount("ada"), WaitStage.PROCESSED)
                            .block(WAIT);
                    gateway.send(Bank.account("s-1"), new Deposit(5), WaitStage.PROCESSED)
                            .block(WAIT);
                    gateway.send(Bank.account("s-1"), new Deposit(6), WaitStage.PROCESSED)
                            .block(WAIT);

                    SnapshotStore snapshots = context.getBean(SnapshotStore.class);
                    await().atMost(WAIT)
                            .untilAsserted(() -> assertThat(
                                            snapshots.load(Bank.account("s-1")).block(WAIT))
                                    .extracting(Snapshot::version)
                                    .as("saved at version 2, of the state loaded then (version 2 or 3)")
                                    .isIn(2, 3));
                });
    }

    @Test
    void aHandlerTracksTheStoreFromItsCheckpointInPostgresAndAFeedPropertyOverridesTheDefault() {
        AtomicInteger handled = new AtomicInteger();
        EventProcessor handler = EventProcessor.builder("Mailer", ProcessorKind.HANDLER)
                .on(Bank.ACCOUNT, Object.class, (event, context) -> Mono.fromRunnable(handled::incrementAndGet))
                .build();
        runner.withPropertyValues(database())
                .withPropertyValues("lanes.processors.feed.BalanceProjection=bus")
                .withBean("mailer", EventProcessor.class, () -> handler)
                .run(context -> {
                    assertThat(context.getBean(LanesWiring.class).details())
                            .extractingByKey("processors")
                            .isEqualTo(Map.of(
                                    "BalanceProjection",
                                    "bus",
                                    "Mailer",
                                    "tracking",
                                    "Snapshotter-bank.account",
                                    "bus"));
                    context.getBean(CommandGateway.class)
                            .send(Bank.account("t-1"), new OpenAccount("ada"), WaitStage.PROCESSED)
                            .block(WAIT);

                    await().atMost(WAIT).until(() -> handled.get() == 1);
                    CheckpointStore checkpoints = context.getBean(CheckpointStore.class);
                    await().atMost(WAIT)
                            .untilAsserted(
                                    () -> assertThat(checkpoints.load("Mailer").block(WAIT))
                                            .isPositive());
                });
    }

    @Test
    void aSegmentsPropertySplitsATrackingProcessorAndTheOnlyInstanceReadsEverySegment() {
        AtomicInteger handled = new AtomicInteger();
        EventProcessor handler = EventProcessor.builder("SegmentedMailer", ProcessorKind.HANDLER)
                .on(Bank.ACCOUNT, Object.class, (event, context) -> Mono.fromRunnable(handled::incrementAndGet))
                .build();
        runner.withPropertyValues(database())
                .withPropertyValues("lanes.processors.segments.SegmentedMailer=4")
                .withBean("mailer", EventProcessor.class, () -> handler)
                .run(context -> {
                    TrackingProcessor tracking = context.getBean(LanesWiring.class).tracked().stream()
                            .filter(tracked -> tracked.name().equals("SegmentedMailer"))
                            .map(tracked -> tracked.local().get())
                            .findFirst()
                            .orElseThrow();
                    assertThat(tracking.segments()).isEqualTo(4);
                    await().atMost(WAIT).until(() -> tracking.ownedSegments().equals(List.of(0, 1, 2, 3)));
                    context.getBean(CommandGateway.class)
                            .send(Bank.account("s-1"), new OpenAccount("ada"), WaitStage.PROCESSED)
                            .block(WAIT);
                    await().atMost(WAIT).until(() -> handled.get() == 1);
                });
    }

    @Test
    void aProjectionFedFromTheStoreRecordsTheDispatcherMeters() {
        runner.withPropertyValues(database())
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .run(context -> {
                    context.getBean(CommandGateway.class)
                            .send(Bank.account("m-1"), new OpenAccount("ada"), WaitStage.PROCESSED)
                            .block(WAIT);

                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    await().atMost(WAIT)
                            .untilAsserted(() -> assertThat(registry.find(LanesMicrometer.HANDLE)
                                            .tag(LanesMicrometer.DISPATCHER_TAG, "Tracking-BalanceProjection")
                                            .timers())
                                    .isNotEmpty());
                    assertThat(registry.find(LanesMicrometer.QUEUED)
                                    .tag(LanesMicrometer.DISPATCHER_TAG, "Tracking-BalanceProjection")
                                    .gauges())
                            .isNotEmpty();
                });
    }

    @Test
    void healthIsOutOfServiceUntilTheProjectionsCaughtUpWithTheStoreAtStartThenUp() {
        String[] database = database();
        runner.withPropertyValues(database).run(context -> {
            CommandGateway gateway = context.getBean(CommandGateway.class);
            for (int i = 0; i < 3; i++) {
                gateway.send(Bank.account("h-" + i), new OpenAccount("ada"), WaitStage.PROCESSED)
                        .block(WAIT);
            }
        });
        CompletableFuture<Void> gate = new CompletableFuture<>();
        EventProcessor gated = EventProcessor.builder("GatedProjection", ProcessorKind.PROJECTION)
                .on(Bank.ACCOUNT, Object.class, (event, context) -> Mono.fromFuture(gate))
                .build();

        runner.withPropertyValues(database)
                .withBean("gated", EventProcessor.class, () -> gated)
                .run(context -> {
                    LanesHealthIndicator indicator = context.getBean(LanesHealthIndicator.class);
                    Health replaying = indicator.health();
                    assertThat(replaying.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
                    assertThat(replaying.getDetails())
                            .extractingByKey("catchingUp")
                            .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                            .containsKey("GatedProjection");

                    gate.complete(null);

                    await().atMost(WAIT)
                            .until(() -> indicator.health().getStatus().equals(Status.UP));
                    assertThat(indicator.health().getDetails()).doesNotContainKey("catchingUp");
                });
    }

    @Test
    void healthWaitsForCatchUpFalseReportsUpWhileAProjectionReplays() {
        String[] database = database();
        runner.withPropertyValues(database)
                .run(context -> context.getBean(CommandGateway.class)
                        .send(Bank.account("u-1"), new OpenAccount("ada"), WaitStage.PROCESSED)
                        .block(WAIT));
        CompletableFuture<Void> gate = new CompletableFuture<>();
        EventProcessor gated = EventProcessor.builder("GatedProjection", ProcessorKind.PROJECTION)
                .on(Bank.ACCOUNT, Object.class, (event, context) -> Mono.fromFuture(gate))
                .build();
        runner.withPropertyValues(database)
                .withPropertyValues("lanes.processors.health-waits-for-catch-up=false")
                .withBean("gated", EventProcessor.class, () -> gated)
                .run(context -> {
                    Health health = context.getBean(LanesHealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails()).containsKey("catchingUp");
                    gate.complete(null);
                });
    }

    @Test
    void theGroupCommitPropertiesDefaultAndRangeAreLanesPostgresOwn() {
        assertThat(LanesProperties.Postgres.DEFAULT_APPEND_BATCH_SIZE)
                .isEqualTo(PostgresOptions.DEFAULT.appendBatchSize());
        assertThat(LanesProperties.Postgres.DEFAULT_APPEND_BATCH_WAIT)
                .isEqualTo(PostgresOptions.DEFAULT.appendBatchWait());
        Duration longest = PostgresOptions.MAX_APPEND_BATCH_WAIT;
        assertThat(postgres(PostgresOptions.MAX_APPEND_BATCH_SIZE, longest).appendBatchWait())
                .isEqualTo(longest);
        assertThatThrownBy(() -> postgres(PostgresOptions.MAX_APPEND_BATCH_SIZE + 1, longest))
                .hasMessageContaining("lanes.postgres.append-batch-size");
        assertThatThrownBy(() -> postgres(1, longest.plusMillis(1)))
                .hasMessageContaining("lanes.postgres.append-batch-wait");
    }

    private static LanesProperties.Postgres postgres(int appendBatchSize, Duration appendBatchWait) {
        return new LanesProperties.Postgres(
                true,
                true,
                LanesProperties.Postgres.DEFAULT_SNAPSHOT_INTERVAL,
                LanesProperties.Postgres.DEFAULT_SOCKET_TIMEOUT,
                appendBatchSize,
                appendBatchWait);
    }

    @Test
    void theEventStoreTakesItsGroupCommitFromThePropertiesAndItsThreadsFromThePool() {
        runner.withPropertyValues(database()).run(context -> {
            PostgresOptions options = context.getBean(PostgresEventStore.class).options();
            assertThat(options.appendBatchSize()).isEqualTo(LanesProperties.Postgres.DEFAULT_APPEND_BATCH_SIZE);
            assertThat(options.appendBatchWait()).isEqualTo(LanesProperties.Postgres.DEFAULT_APPEND_BATCH_WAIT);
            assertThat(options.poolSize())
                    .isEqualTo(((HikariDataSource) context.getBean(DataSource.class)).getMaximumPoolSize());
        });
        runner.withPropertyValues(database())
                .withPropertyValues("lanes.postgres.append-batch-size=500", "lanes.postgres.append-batch-wait=0")
                .run(context -> {
                    PostgresOptions options =
                            context.getBean(PostgresEventStore.class).options();
                    assertThat(options.appendBatchSize()).isEqualTo(500);
                    assertThat(options.appendBatchWait()).isZero();
                });
    }

    @Test
    void theDataSourceGetsASocketTimeoutUnlessItHasItsOwn() {
        runner.withPropertyValues(database())
                .run(context ->
                        assertThat(hikari(context.getBean(DataSource.class))).containsEntry("socketTimeout", "30"));
        runner.withPropertyValues(database())
                .withPropertyValues("spring.datasource.hikari.data-source-properties.socketTimeout=7")
                .run(context ->
                        assertThat(hikari(context.getBean(DataSource.class))).containsEntry("socketTimeout", "7"));
        runner.withPropertyValues(database())
                .withPropertyValues("lanes.postgres.socket-timeout=0")
                .run(context ->
                        assertThat(hikari(context.getBean(DataSource.class))).doesNotContainKey("socketTimeout"));
    }

    @Test
    void aPgjdbcDataSourceGetsTheSocketTimeoutUnlessItHasItsOwn() {
        String url = database()[0].substring("spring.datasource.url=".length());
        PGSimpleDataSource plain = new PGSimpleDataSource();
        plain.setURL(url);
        plain.setUser(TestPostgres.USER);
        PGSimpleDataSource own = new PGSimpleDataSource();
        own.setURL(url);
        own.setUser(TestPostgres.USER);
        own.setSocketTimeout(9);
        runner.withBean(DataSource.class, () -> plain)
                .run(context -> assertThat(plain.getSocketTimeout()).isEqualTo(30));
        runner.withBean(DataSource.class, () -> own)
                .run(context -> assertThat(own.getSocketTimeout()).isEqualTo(9));
    }

    @Test
    void aLockedTableFailsTheCallAtTheSocketTimeoutInsteadOfHanging() throws Exception {
        String[] database = database();
        String url = database[0].substring("spring.datasource.url=".length());
        runner.withPropertyValues(database)
                .withPropertyValues("lanes.postgres.socket-timeout=1s")
                .run(context -> {
                    Lanes lanes = context.getBean(Lanes.class);
                    try (Connection locker = DriverManager.getConnection(url, TestPostgres.USER, null);
                            Statement lock = locker.createStatement()) {
                        locker.setAutoCommit(false);
                        lock.execute("LOCK TABLE lanes_event_streams IN ACCESS EXCLUSIVE MODE");

                        long started = System.nanoTime();
                        assertThatThrownBy(() -> lanes.eventStore()
                                        .load(Bank.account("l-1"), 1)
                                        .collectList()
                                        .block(WAIT))
                                .isInstanceOf(PostgresUnavailableException.class);
                        assertThat(Duration.ofNanos(System.nanoTime() - started))
                                .isLessThan(Duration.ofSeconds(10));
                        locker.rollback();
                    }
                });
    }

    private static Map<Object, Object> hikari(DataSource dataSource) {
        return ((HikariDataSource) dataSource).getDataSourceProperties();
    }

    private static String[] database() {
        return LanesAutoConfigurationTest.dataSource();
    }
}
