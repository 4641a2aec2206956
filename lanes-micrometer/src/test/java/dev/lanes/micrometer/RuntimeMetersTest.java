package dev.lanes.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.dispatch.TestExchange;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

class RuntimeMetersTest {
    private static final Duration PROMPTLY = Duration.ofSeconds(10);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AggregateSchedulerSupplier schedulers = AggregateSchedulers.perType("runtime", 2);
    private final VirtualTimeScheduler timer = VirtualTimeScheduler.create();
    private final Sinks.Many<MessageExchange<String>> source =
            Sinks.many().unicast().onBackpressureBuffer();
    /** Exchanges whose message starts with "held" wait for it. */
    private final Sinks.Empty<Void> release = Sinks.empty();

    private LanesRuntime runtime;

    @BeforeEach
    void bind() {
        AggregateDispatcher<String> dispatcher = AggregateDispatcher.<String>builder(
                        "OrderDispatcher", TestExchange.ORDER)
                .source(source.asFlux())
                .handler(exchange -> exchange.message().startsWith("held") ? release.asMono() : Mono.empty())
                .schedulers(schedulers)
                .build();
        // the quiet period and the deadline run on virtual time: the test says when they pass
        runtime = new LanesRuntime(List.of(dispatcher), SHUTDOWN_TIMEOUT, Duration.ofMillis(100), timer);
        LanesMicrometer.runtimeMetrics(runtime, Tags.of("service", "shop")).bindTo(registry);
    }

    @AfterEach
    void stop() {
        runtime.forceStop();
        schedulers.forceStop();
        timer.dispose();
    }

    @Test
    void stateIsOneSeriesPerStateWithOneForTheCurrentState() {
        assertThat(states()).containsExactlyEntriesOf(states("new"));

        runtime.start().block(PROMPTLY);

        assertThat(states()).containsExactlyEntriesOf(states("running"));
    }

    @Test
    void leasesCountAdmittedWorkAndTheWorkStillOpen() {
        runtime.start().block(PROMPTLY);
        TestExchange held = TestExchange.of("held", 0);
        TestExchange done = TestExchange.of("done", 0);
        emit(held, done);
        // a lane closes its lease just after it acknowledges
        await().atMost(PROMPTLY).until(() -> done.acknowledged() && gauge(LanesMicrometer.RUNTIME_LEASES_OPEN) == 1);
        assertThat(admitted()).isEqualTo(2);

        release.tryEmitEmpty();
        await().atMost(PROMPTLY).until(() -> held.acknowledged() && gauge(LanesMicrometer.RUNTIME_LEASES_OPEN) == 0);
        assertThat(admitted()).isEqualTo(2);
    }

    @Test
    void shutdownFiguresHaveNoValueBeforeTheRuntimeStopped() {
        runtime.start().block(PROMPTLY);

        assertThat(gauge(LanesMicrometer.SHUTDOWN_DURATION)).isNaN();
        assertThat(gauge(LanesMicrometer.SHUTDOWN_GRACEFUL)).isNaN();
        assertThat(gauge(LanesMicrometer.SHUTDOWN_CUT)).isNaN();
    }

    @Test
    void aGracefulShutdownReportsItsDurationAndThatItWasGraceful() {
        runtime.start().block(PROMPTLY);
        TestExchange done = TestExchange.of("done", 0);
        emit(done);
        await().atMost(PROMPTLY).until(done::acknowledged);

        Mono<ShutdownReport> shutdown = runtime.shutdown().cache();
        shutdown.subscribe();
        timer.advanceTimeBy(Duration.ofMillis(100)); // the quiet period
        ShutdownReport report = shutdown.block(PROMPTLY);

        assertThat(report.graceful()).isTrue();
        assertThat(states()).containsExactlyEntriesOf(states("stopped"));
        assertThat(gauge(LanesMicrometer.SHUTDOWN_GRACEFUL)).isEqualTo(1);
        assertThat(gauge(LanesMicrometer.SHUTDOWN_CUT)).isZero();
        assertThat(registry.get(LanesMicrometer.SHUTDOWN_DURATION).timeGauge().value(TimeUnit.NANOSECONDS))
                .isEqualTo(report.duration().toNanos());
    }

    @Test
    void aForcedShutdownReportsTheWorkItCut() {
        runtime.start().block(PROMPTLY);
        TestExchange held = TestExchange.of("held", 0);
        emit(held);
        await().atMost(PROMPTLY).until(() -> gauge(LanesMicrometer.RUNTIME_LEASES_OPEN) == 1);

        Mono<ShutdownReport> shutdown = runtime.shutdown().cache();
        shutdown.subscribe();
        timer.advanceTimeBy(SHUTDOWN_TIMEOUT); // the held exchange keeps its lease open past the deadline
        ShutdownReport report = shutdown.block(PROMPTLY);

        assertThat(report.forced()).isTrue();
        assertThat(held.rejected()).isTrue();
        assertThat(gauge(LanesMicrometer.SHUTDOWN_GRACEFUL)).isZero();
        assertThat(gauge(LanesMicrometer.SHUTDOWN_CUT)).isEqualTo(1);
    }

    @Test
    void theGaugesDoNotStartOrStopTheRuntime() {
        registry.getMeters().forEach(meter -> meter.measure().forEach(measurement -> measurement.getValue()));

        assertThat(runtime.state()).isEqualTo(LanesRuntime.State.NEW);
    }

    private void emit(TestExchange... exchanges) {
        for (TestExchange exchange : exchanges) {
            source.emitNext(exchange, Sinks.EmitFailureHandler.busyLooping(PROMPTLY));
        }
    }

    private double gauge(String name) {
        return registry.get(name).tag("service", "shop").gauge().value();
    }

    private double admitted() {
        return registry.get(LanesMicrometer.RUNTIME_LEASES_ADMITTED)
                .tag("service", "shop")
                .functionCounter()
                .count();
    }

    private Map<String, Double> states() {
        Map<String, Double> states = new TreeMap<>();
        registry.get(LanesMicrometer.RUNTIME_STATE)
                .gauges()
                .forEach(gauge -> states.put(gauge.getId().getTag(LanesMicrometer.STATE_TAG), gauge.value()));
        return states;
    }

    private static Map<String, Double> states(String current) {
        Map<String, Double> states = new TreeMap<>();
        for (LanesRuntime.State state : LanesRuntime.State.values()) {
            String name = state.name().toLowerCase(java.util.Locale.ROOT);
            states.put(name, name.equals(current) ? 1.0 : 0.0);
        }
        return states;
    }
}
