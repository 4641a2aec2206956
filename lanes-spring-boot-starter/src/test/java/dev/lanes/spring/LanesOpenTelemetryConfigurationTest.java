package dev.lanes.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.command.CommandGateway;
import dev.lanes.command.WaitStage;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.Bank;
import dev.lanes.opentelemetry.LanesTracing;
import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter traces Lanes when an {@link OpenTelemetry} bean exists and lanes-opentelemetry is on the classpath, and
 * traces nothing otherwise.
 */
class LanesOpenTelemetryConfigurationTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class))
            .withUserConfiguration(BankBeans.class)
            .withPropertyValues("lanes.store=memory");

    private OpenTelemetry openTelemetry() {
        return OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                        .build())
                .build();
    }

    @Test
    void anOpenTelemetryBeanTracesEachSendAndItsLane() {
        runner.withBean(OpenTelemetry.class, this::openTelemetry).run(context -> {
            assertThat(context).hasSingleBean(MessageTracing.class);
            context.getBean(CommandGateway.class)
                    .send(Bank.account("traced"), new OpenAccount("Ada"), WaitStage.PROCESSED)
                    .block(TIMEOUT);

            await().atMost(TIMEOUT)
                    .untilAsserted(() -> assertThat(exporter.getFinishedSpanItems())
                            .extracting(SpanData::getName)
                            .contains("send bank.account", "process bank.account", "process BalanceProjection"));
            List<SpanData> spans = exporter.getFinishedSpanItems();
            SpanData send = spans.stream()
                    .filter(span -> span.getKind() == SpanKind.PRODUCER)
                    .findFirst()
                    .orElseThrow();
            assertThat(spans)
                    .filteredOn(span -> span.getName().equals("process bank.account"))
                    .singleElement()
                    .satisfies(lane -> assertThat(lane.getParentSpanId()).isEqualTo(send.getSpanId()));
        });
    }

    @Test
    void withoutAnOpenTelemetryBeanNothingIsTraced() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(MessageTracing.class);
        });
    }

    @Test
    void withoutLanesOpenTelemetryOnTheClasspathTheOpenTelemetryBeanIsLeftAlone() {
        runner.withClassLoader(new FilteredClassLoader(LanesTracing.class))
                .withBean(OpenTelemetry.class, this::openTelemetry)
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(MessageTracing.class);
                    context.getBean(CommandGateway.class)
                            .send(Bank.account("untraced"), new OpenAccount("Bob"), WaitStage.PROCESSED)
                            .block(TIMEOUT);
                    assertThat(exporter.getFinishedSpanItems()).isEmpty();
                });
    }
}
