package dev.lanes.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.test.logging.LogCapture;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.event.Level;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The lanes.* properties: their defaults, their checks at bind time and their metadata. */
class LanesPropertiesTest {
    /** Spring warns once when a refresh fails. */
    @RegisterExtension
    final LogCapture logs = LogCapture.standardErrorFailingOnError(); // fails a test that logs at ERROR

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("lanes.store=memory")
            .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class))
            .withUserConfiguration(BankBeans.class);

    @Test
    void withoutPropertiesEveryDefaultIsLanesOwn() {
        runner.run(context -> {
            LanesProperties bound = context.getBean(LanesProperties.class);
            assertThat(bound.store()).as("set by this test's runner").isEqualTo(LanesProperties.Store.MEMORY);
            assertThat(bound).usingRecursiveComparison().ignoringFields("store").isEqualTo(LanesProperties.defaults());
        });
    }

    @Test
    void setPropertiesAreBound() {
        runner.withPropertyValues(
                        "lanes.shutdown-timeout=5s",
                        "lanes.quiet-period=50ms",
                        "lanes.command-bus-capacity=64",
                        "lanes.schedulers.kind=shared-pool",
                        "lanes.schedulers.workers=2")
                .run(context -> {
                    LanesProperties properties = context.getBean(LanesProperties.class);
                    assertThat(properties.shutdownTimeout()).hasSeconds(5);
                    assertThat(properties.quietPeriod()).hasMillis(50);
                    assertThat(properties.commandBusCapacity()).isEqualTo(64);
                    assertThat(properties.schedulers())
                            .isEqualTo(new LanesProperties.Schedulers(LanesProperties.SchedulerKind.SHARED_POOL, 2));
                });
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "lanes.shutdown-timeout=0s      | lanes.shutdown-timeout must be positive: PT0S",
                "lanes.start-timeout=-1s        | lanes.start-timeout must be positive: PT-1S",
                "lanes.command-timeout=0ms      | lanes.command-timeout must be positive: PT0S",
                "lanes.quiet-period=40s         | lanes.quiet-period must be at least 0 and shorter than lanes.shutdown-timeout (PT30S): PT40S",
                "lanes.command-bus-capacity=0   | lanes.command-bus-capacity must be within [1, 2^30]: 0",
                "lanes.schedulers.workers=0     | lanes.schedulers.workers must be positive: 0",
                "lanes.kafka.topic-partitions=0 | lanes.kafka.topic-partitions must be positive: 0",
                "lanes.kafka.startup-timeout=0s | lanes.kafka.startup-timeout must be positive: PT0S"
            })
    void aValueOutOfRangeFailsTheStartNamingThePropertyAndTheValue(String property, String message) {
        runner.withPropertyValues(property).run(context -> {
            assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(message);
            assertThat(logs.lines(Level.WARN))
                    .singleElement()
                    .satisfies(line -> assertThat(line.message()).contains("cancelling refresh attempt"));
        });
    }

    @Test
    void aShutdownTimeoutLongerThanSpringsWaitForItsPhaseFailsTheStartNamingBoth() {
        runner.withPropertyValues("lanes.shutdown-timeout=45s").run(context -> {
            assertThat(context)
                    .getFailure()
                    .rootCause()
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("lanes.shutdown-timeout (PT45S) must not be longer than"
                            + " spring.lifecycle.timeout-per-shutdown-phase (PT30S)");
            assertThat(logs.lines(Level.WARN))
                    .singleElement()
                    .satisfies(line -> assertThat(line.message()).contains("cancelling refresh attempt"));
        });
        runner.withPropertyValues("lanes.shutdown-timeout=45s", "spring.lifecycle.timeout-per-shutdown-phase=1m")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LanesLifecycle.class));
    }

    @Test
    void anUnknownSchedulerKindFailsNamingTheProperty() {
        runner.withPropertyValues("lanes.schedulers.kind=round-robin").run(context -> {
            assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining("Failed to bind properties under 'lanes.schedulers.kind'")
                    .hasStackTraceContaining("round-robin");
            assertThat(logs.lines(Level.WARN))
                    .singleElement()
                    .satisfies(line -> assertThat(line.message()).contains("cancelling refresh attempt"));
        });
    }

    @Test
    void theJarCarriesMetadataForEveryProperty() throws IOException {
        String metadata;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in)
                    .as("generated by spring-boot-configuration-processor into the jar")
                    .isNotNull();
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(metadata)
                .contains(
                        "\"lanes.shutdown-timeout\"",
                        "\"lanes.quiet-period\"",
                        "\"lanes.start-timeout\"",
                        "\"lanes.command-timeout\"",
                        "\"lanes.command-bus-capacity\"",
                        "\"lanes.schedulers.kind\"",
                        "\"lanes.schedulers.workers\"",
                        "\"lanes.postgres.enabled\"",
                        "\"lanes.postgres.migrate\"",
                        "\"lanes.postgres.snapshot-interval\"",
                        "\"lanes.postgres.socket-timeout\"",
                        "\"lanes.postgres.append-batch-size\"",
                        "\"lanes.postgres.append-batch-wait\"",
                        "\"lanes.store\"",
                        "\"lanes.processors.feed\"",
                        "\"lanes.processors.health-waits-for-catch-up\"",
                        "\"lanes.kafka.bootstrap-servers\"",
                        "\"lanes.kafka.topic-prefix\"",
                        "\"lanes.kafka.client-properties\"")
                .contains("Deadline of the runtime's graceful stop");
    }
}
