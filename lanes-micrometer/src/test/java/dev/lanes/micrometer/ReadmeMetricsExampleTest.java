package dev.lanes.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.WaitStage;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.runtime.LanesRuntime;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** The metrics example of docs/operations/metrics.md, compiled and run: the command and event sides and the runtime, measured. */
class ReadmeMetricsExampleTest {
    static final NamedAggregate COUNTER = NamedAggregate.of("demo", "counter");

    record Increment(long by) {}

    record Incremented(long by) {}

    @Test
    void everyDispatcherAndTheRuntimeReportToTheRegistry() {
        var total = new AtomicLong();
        var counter = AggregateDefinition.<Long>builder(COUNTER, id -> 0L)
                .handle(Increment.class, (value, command) -> List.of(new Incremented(command.by())))
                .apply(Incremented.class, (value, event) -> value + event.by())
                .build();
        var projection = EventProcessor.builder("Totals", ProcessorKind.PROJECTION)
                .on(
                        COUNTER,
                        Incremented.class,
                        (event, context) -> Mono.fromRunnable(() -> total.addAndGet(event.by())))
                .build();

        // docs/operations/metrics.md
        MeterRegistry registry = new SimpleMeterRegistry(); // your application's registry
        Lanes lanes = Lanes.builder()
                .aggregate(counter)
                .processor(projection)
                // every dispatcher: lanes.dispatcher.* {dispatcher=CommandDispatcher or Totals, aggregate=demo.counter}
                .metrics(LanesMicrometer.dispatcherMetrics(registry))
                .build();
        LanesMicrometer.runtimeMetrics(lanes.runtime()).bindTo(registry); // lanes.runtime.*
        // end of the docs example

        LanesRuntime runtime = lanes.runtime();
        lanes.start(Duration.ofSeconds(10));
        try {
            lanes.gateway()
                    .send(AggregateId.of(COUNTER, "c-1"), new Increment(2), WaitStage.PROJECTED)
                    .block(Duration.ofSeconds(10));

            assertThat(total).hasValue(2);
            // PROJECTED is answered from inside the handlers; a dispatcher counts the outcome just after they end
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> handled(registry, "CommandDispatcher") == 1 && handled(registry, "Totals") == 1);
            assertThat(registry.get(LanesMicrometer.RUNTIME_STATE)
                            .tag(LanesMicrometer.STATE_TAG, "running")
                            .gauge()
                            .value())
                    .isEqualTo(1);
        } finally {
            runtime.shutdown().block(Duration.ofSeconds(40));
        }
        assertThat(registry.get(LanesMicrometer.SHUTDOWN_GRACEFUL).gauge().value())
                .isEqualTo(1);
    }

    private static double handled(MeterRegistry registry, String dispatcher) {
        return registry.get(LanesMicrometer.OUTCOMES)
                .tag(LanesMicrometer.DISPATCHER_TAG, dispatcher)
                .tag(LanesMicrometer.AGGREGATE_TAG, "demo.counter")
                .tag(LanesMicrometer.OUTCOME_TAG, "handled")
                .counter()
                .count();
    }
}
