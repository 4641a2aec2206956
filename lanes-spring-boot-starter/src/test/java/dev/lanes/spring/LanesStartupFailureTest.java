package dev.lanes.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.test.logging.LogCapture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * Every start that Lanes' configuration refuses ends the same way, as a real {@code SpringApplication} reports it: one
 * "APPLICATION FAILED TO START" report whose description is one line naming the property, the value and what is valid.
 */
class LanesStartupFailureTest {
    private static final String BOX = "APPLICATION FAILED TO START";

    /** Spring Boot logs the report at ERROR. */
    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(LanesAutoConfiguration.class)
    @Import(BankBeans.class)
    static class Application {}

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "lanes.store=bogus              | lanes.store: 'bogus' is not one of memory, postgres",
                "lanes.schedulers.kind=round-robin | lanes.schedulers.kind: 'round-robin' is not one of per-type,"
                        + " shared-pool, shared-workers",
                "lanes.processors.feed.BalanceProjection=sometimes | lanes.processors.feed.balanceprojection:"
                        + " 'sometimes' is not one of tracking, replay, bus",
                "lanes.shutdown-timeout=abc     | lanes.shutdown-timeout: 'abc' is not a valid Duration",
                "lanes.quiet-period=40s         | lanes.quiet-period must be at least 0 and shorter than"
                        + " lanes.shutdown-timeout (PT30S): PT40S",
                "lanes.command-bus-capacity=0   | lanes.command-bus-capacity must be within [1, 2^30]: 0",
                "lanes.schedulers.workers=0     | lanes.schedulers.workers must be positive: 0",
                "lanes.kafka.topic-partitions=0 | lanes.kafka.topic-partitions must be positive: 0",
                "lanes.postgres.socket-timeout=500ms | lanes.postgres.socket-timeout must be 0 (leave the DataSource"
                        + " alone) or at least 1s: PT0.5S",
                "lanes.postgres.enabled=false,lanes.store=postgres | lanes.store: 'postgres' contradicts"
                        + " lanes.postgres.enabled=false; set one of them only",
                "lanes.postgres.snapshot-interval=-1 | lanes.postgres.snapshot-interval must be 0 (none) or positive: -1",
                "lanes.postgres.append-batch-size=0 | lanes.postgres.append-batch-size must be from 1 to 65535: 0",
                "lanes.postgres.append-batch-wait=1s | lanes.postgres.append-batch-wait must be from 0 to 100ms: PT1S",
                "lanes.shutdown-timeout=45s     | lanes.shutdown-timeout (PT45S) must not be longer than"
                        + " spring.lifecycle.timeout-per-shutdown-phase (PT30S): Spring would stop waiting for Lanes'"
                        + " graceful stop while it still drains; raise the phase timeout or lower Lanes' own",
                "lanes.processors.feed.Nope=replay | lanes.processors.feed.Nope: 'replay' names no EventProcessor bean"
                        + " (the processor beans are: [BalanceProjection])",
                "lanes.processors.segments.Nope=2 | lanes.processors.segments.Nope: '2' names no EventProcessor bean"
                        + " (the processor beans are: [BalanceProjection])",
                "lanes.processors.segments.BalanceProjection=3 | lanes.processors.segments.BalanceProjection=3: segments"
                        + " must be a power of two from 1 to 1024: 3",
                "lanes.processors.segments.BalanceProjection=4 | lanes.processors.segments.BalanceProjection=4: only a"
                        + " tracking processor is split into segments, and BalanceProjection is fed by bus"
            })
    void anInvalidPropertyFailsTheStartWithOneReportNamingItTheValueAndTheValidOnes(String properties, String line) {
        String[] set = ("lanes.store=memory," + properties).split(",");
        assertThatThrownBy(() -> start(set)).isNotNull();

        assertThat(description()).isEqualTo(line);
    }

    @Test
    void withoutADataSourceTheReportNamesWhatIsMissingAndHowToOptOut() {
        assertThatThrownBy(() -> start()).isNotNull();

        assertThat(description())
                .isEqualTo("Lanes has lanes-postgres on the classpath but no single DataSource bean to store its events"
                        + " in");
        assertThat(logs.text())
                .contains("Add spring-boot-starter-jdbc and set spring.datasource.url")
                .contains("or set lanes.store=memory");
    }

    @Test
    void aTrackingFeedWithoutACheckpointStoreFailsNamingTheProperty() {
        assertThatThrownBy(() -> start("lanes.store=memory", "lanes.processors.feed.BalanceProjection=tracking"))
                .isNotNull();

        assertThat(description())
                .startsWith("lanes.processors.feed.BalanceProjection: 'tracking' needs a checkpoint store, and this"
                        + " application has none");
        assertThat(logs.text()).contains("or set lanes.processors.feed.BalanceProjection to replay or bus");
    }

    private static void start(String... properties) {
        new SpringApplicationBuilder(Application.class)
                .web(WebApplicationType.NONE)
                .properties(properties)
                .run()
                .close();
    }

    /** The report's description: the lines between "Description:" and "Action:", which must be one. */
    private String description() {
        String text = logs.text();
        assertThat(text).as("Spring Boot's failure report").contains(BOX);
        int from = text.indexOf("Description:", text.indexOf(BOX)) + "Description:".length();
        int to = text.indexOf("Action:", from);
        String description = text.substring(from, to).strip();
        assertThat(description.lines()).as(description).hasSize(1);
        return description;
    }
}
