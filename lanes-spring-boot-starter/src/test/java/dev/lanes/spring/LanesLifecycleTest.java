package dev.lanes.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import dev.lanes.test.logging.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;

/**
 * The runtime inside Spring's lifecycle: a context close drains what Lanes admitted, the stop callback runs once, the
 * deadline still ends the stop, and the health indicator follows the runtime through it.
 */
class LanesLifecycleTest {
    /** The forced stop's WARN line, captured as written. */
    @RegisterExtension
    final LogCapture logs = LogCapture.standardErrorFailingOnError(); // fails a test that logs at ERROR

    private static final NamedAggregate GATED = NamedAggregate.of("test", "gated");
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** One command: its handler finishes only once the test opens the gate. */
    record Work() {}

    record Done() {}

    /** An aggregate whose handlers all wait for one gate: in-flight work the test controls. */
    @Configuration(proxyBeanMethods = false)
    static class GatedAggregate {
        final Sinks.Empty<Void> gate = Sinks.empty();

        @Bean
        AggregateDefinition<Integer> gated() {
            return AggregateDefinition.<Integer>builder(GATED, id -> 0)
                    .handleAsync(Work.class, (count, work) -> gate.asMono().thenMany(Flux.just(new Done())))
                    .apply(Done.class, (count, done) -> count + 1)
                    .build();
        }

        @Bean
        Sinks.Empty<Void> gate() {
            return gate;
        }
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("lanes.store=memory")
            .withConfiguration(AutoConfigurations.of(LanesAutoConfiguration.class, LanesHealthAutoConfiguration.class))
            .withUserConfiguration(GatedAggregate.class);

    @Test
    void aContextCloseDrainsTheCommandsInFlightBeforeLanesStops() {
        runner.withPropertyValues("lanes.shutdown-timeout=20s").run(context -> {
            Lanes lanes = context.getBean(Lanes.class);
            List<CompletableFuture<CommandResult>> inFlight = IntStream.range(0, 5)
                    .mapToObj(i -> lanes.gateway()
                            .send(AggregateId.of(GATED, "g-" + i), new Work(), WaitStage.PROCESSED)
                            .toFuture())
                    .toList();
            await().atMost(WAIT).until(() -> lanes.runtime().openLeases() >= 5);

            CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
            await().atMost(WAIT).until(() -> lanes.runtime().state() == LanesRuntime.State.STOPPING);
            assertThat(inFlight).noneMatch(CompletableFuture::isDone);
            assertThat(closing).isNotDone();
            context.getBean("gate", Sinks.Empty.class).tryEmitEmpty();

            closing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(inFlight)
                    .allSatisfy(result -> assertThat(result.get().version()).isEqualTo(1));
            ShutdownReport report = lanes.runtime().terminated().block(WAIT);
            assertThat(report).isNotNull();
            assertThat(report.graceful()).as(report.toString()).isTrue();
            assertThat(lanes.runtime().state()).isEqualTo(LanesRuntime.State.STOPPED);
        });
    }

    @Test
    void theStopCallbackRunsOnceWhenTheGracefulStopEnded() {
        runner.run(context -> {
            LanesLifecycle lifecycle = context.getBean(LanesLifecycle.class);
            LanesHealthIndicator health = context.getBean(LanesHealthIndicator.class);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
            AtomicInteger calls = new AtomicInteger();

            lifecycle.stop(calls::incrementAndGet);

            await().atMost(WAIT).until(() -> calls.get() == 1);
            assertThat(lifecycle.isRunning()).isFalse();
            Health stopped = health.health();
            assertThat(stopped.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
            assertThat(stopped.getDetails()).containsEntry("state", LanesRuntime.State.STOPPED);
            assertThat(stopped.getDetails()).containsKey("shutdown");

            AtomicInteger again = new AtomicInteger();
            lifecycle.stop(again::incrementAndGet); // Spring's context close, after the explicit stop
            assertThat(again).hasValue(1);
            assertThat(calls).hasValue(1);
        });
    }

    @Test
    void aHandlerThatNeverEndsIsForcedAtTheDeadlineAndTheCallbackStillRuns() {
        runner.withPropertyValues("lanes.shutdown-timeout=500ms", "lanes.quiet-period=100ms")
                .run(context -> {
                    Lanes lanes = context.getBean(Lanes.class);
                    LanesLifecycle lifecycle = context.getBean(LanesLifecycle.class);
                    CompletableFuture<CommandResult> stuck = lanes.gateway()
                            .send(AggregateId.of(GATED, "stuck"), new Work(), WaitStage.PROCESSED)
                            .toFuture();
                    await().atMost(WAIT).until(() -> lanes.runtime().openLeases() >= 1);
                    AtomicInteger calls = new AtomicInteger();

                    lifecycle.stop(calls::incrementAndGet);

                    await().atMost(WAIT).until(() -> calls.get() == 1);
                    ShutdownReport report = lanes.runtime().terminated().block(WAIT);
                    assertThat(report).isNotNull();
                    assertThat(report.forced()).isTrue();
                    await().atMost(WAIT).until(stuck::isDone);
                    assertThat(stuck).isCompletedExceptionally();
                    Health health = context.getBean(LanesHealthIndicator.class).health();
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    await().atMost(WAIT)
                            .untilAsserted(() -> assertThat(logs.lines(Level.WARN))
                                    .filteredOn(line -> line.logger().endsWith("LanesLifecycle"))
                                    .singleElement()
                                    .satisfies(line -> assertThat(line.message())
                                            .contains("did not stop gracefully within lanes.shutdown-timeout (PT0.5S)")
                                            .contains("FORCED")
                                            .contains("spring.lifecycle.timeout-per-shutdown-phase")));
                });
    }

    @Test
    void aGracefulStopLogsNoWarning() {
        runner.run(context -> {
            LanesLifecycle lifecycle = context.getBean(LanesLifecycle.class);
            AtomicInteger calls = new AtomicInteger();
            lifecycle.stop(calls::incrementAndGet);
            await().atMost(WAIT).until(() -> calls.get() == 1);
            assertThat(context.getBean(Lanes.class).runtime().terminated().block(WAIT))
                    .satisfies(report -> assertThat(report.graceful()).isTrue());
            assertThat(logs.lines(Level.WARN)).isEmpty();
        });
    }

    @Test
    void theHealthIndicatorReportsTheParkedCountsOfEachLot() {
        runner.run(context -> {
            Health health = context.getBean(LanesHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails())
                    .containsEntry("state", LanesRuntime.State.RUNNING)
                    .containsEntry("parked", Map.of("commands", 0, "events", 0))
                    .containsKey("openLeases");
        });
    }

    @Test
    void managementHealthLanesEnabledFalseLeavesTheIndicatorOut() {
        runner.withPropertyValues("management.health.lanes.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LanesHealthIndicator.class));
    }
}
