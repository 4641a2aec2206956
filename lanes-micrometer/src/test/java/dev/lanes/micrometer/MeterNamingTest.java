package dev.lanes.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.dispatch.TestExchange;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.config.NamingConvention;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The meters as a registry sees them, in the spirit of Micrometer's {@code MeterRegistryCompatibilityKit}: names, types,
 * base units and tags, for a dispatcher that handled traffic over many ids and a runtime around it.
 */
class MeterNamingTest {
    private static final Duration PROMPTLY = Duration.ofSeconds(10);
    private static final int IDS = 500;

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final AggregateSchedulerSupplier schedulers = AggregateSchedulers.perType("naming", 2);
    private final Sinks.Many<MessageExchange<String>> source =
            Sinks.many().unicast().onBackpressureBuffer();
    private AggregateDispatcher<String> dispatcher;
    private LanesRuntime runtime;

    @BeforeEach
    void handleTrafficOverManyIds() {
        dispatcher = AggregateDispatcher.<String>builder("OrderDispatcher", TestExchange.ORDER)
                .source(source.asFlux())
                .handler(exchange -> Mono.empty())
                .schedulers(schedulers)
                .settings(LaneSettings.DEFAULT.withStrategy(LaneStrategy.KEYED))
                .metrics(LanesMicrometer.dispatcherMetrics(registry))
                .build();
        runtime = new LanesRuntime(List.of(dispatcher), Duration.ofSeconds(10), Duration.ZERO);
        LanesMicrometer.runtimeMetrics(runtime).bindTo(registry);
        runtime.start().block(PROMPTLY);
        List<TestExchange> sent = new ArrayList<>();
        for (int i = 0; i < IDS; i++) {
            sent.add(TestExchange.of("order-" + i, i));
        }
        sent.forEach(exchange -> source.emitNext(exchange, Sinks.EmitFailureHandler.busyLooping(PROMPTLY)));
        await().atMost(PROMPTLY).until(() -> sent.stream().allMatch(TestExchange::acknowledged));
    }

    @AfterEach
    void stop() {
        runtime.forceStop();
        schedulers.forceStop();
    }

    @Test
    void theMetersAreExactlyTheDocumentedOnesWithTheirTypesAndBaseUnits() {
        Map<String, String> described = new TreeMap<>();
        for (Meter meter : registry.getMeters()) {
            Meter.Id id = meter.getId();
            described.merge(id.getName(), id.getType() + " " + id.getBaseUnit(), (a, b) -> {
                assertThat(a).as("one type and unit per name: " + id.getName()).isEqualTo(b);
                return a;
            });
        }

        assertThat(described)
                .containsExactlyInAnyOrderEntriesOf(Map.ofEntries(
                        Map.entry(LanesMicrometer.QUEUE_WAIT, "TIMER seconds"),
                        Map.entry(LanesMicrometer.HANDLE, "TIMER seconds"),
                        Map.entry(LanesMicrometer.OUTCOMES, "COUNTER null"),
                        Map.entry(LanesMicrometer.QUEUED, "GAUGE exchanges"),
                        Map.entry(LanesMicrometer.IN_FLIGHT, "GAUGE exchanges"),
                        Map.entry(LanesMicrometer.LANES, "GAUGE lanes"),
                        Map.entry(LanesMicrometer.DEEPEST_LANE, "GAUGE exchanges"),
                        Map.entry(LanesMicrometer.LANE_SKEW, "GAUGE null"),
                        Map.entry(LanesMicrometer.RUNTIME_STATE, "GAUGE null"),
                        Map.entry(LanesMicrometer.RUNTIME_LEASES_OPEN, "GAUGE leases"),
                        Map.entry(LanesMicrometer.RUNTIME_LEASES_ADMITTED, "COUNTER leases"),
                        Map.entry(LanesMicrometer.SHUTDOWN_DURATION, "GAUGE seconds"),
                        Map.entry(LanesMicrometer.SHUTDOWN_GRACEFUL, "GAUGE null"),
                        Map.entry(LanesMicrometer.SHUTDOWN_CUT, "GAUGE leases")));
    }

    @Test
    void namesAreLowerCaseDottedUnderLanesAndEveryMeterIsDescribed() {
        assertThat(registry.getMeters()).isNotEmpty().allSatisfy(meter -> {
            assertThat(meter.getId().getName()).matches("lanes(\\.[a-z]+)+");
            assertThat(meter.getId().getDescription()).isNotBlank();
        });
        assertThat(NamingConvention.snakeCase.name(LanesMicrometer.QUEUE_WAIT, Meter.Type.TIMER))
                .isEqualTo("lanes_dispatcher_queue_wait");
    }

    @Test
    void dispatcherMetersCarryDispatcherAndAggregateTagsAndOutcomesTheirOutcome() {
        List<Meter> dispatcherMeters = registry.getMeters().stream()
                .filter(meter -> meter.getId().getName().startsWith("lanes.dispatcher."))
                .toList();

        assertThat(dispatcherMeters)
                .isNotEmpty()
                .allSatisfy(meter -> assertThat(meter.getId().getTags())
                        .contains(
                                Tag.of(LanesMicrometer.DISPATCHER_TAG, "OrderDispatcher"),
                                Tag.of(LanesMicrometer.AGGREGATE_TAG, "sales.order")));
        assertThat(outcomeTags(LanesMicrometer.OUTCOMES))
                .containsExactlyInAnyOrder("handled", "retried", "parked", "rejected", "cancelled");
        assertThat(outcomeTags(LanesMicrometer.HANDLE)).containsExactlyInAnyOrder("handled", "retried", "parked");
        assertThat(registry.get(LanesMicrometer.OUTCOMES)
                        .tag(LanesMicrometer.OUTCOME_TAG, "handled")
                        .counter()
                        .count())
                .isEqualTo(IDS);
    }

    @Test
    void noTagValueIsAnAggregateIdWhateverTheTraffic() {
        Set<String> tagValues = registry.getMeters().stream()
                .flatMap(meter -> meter.getId().getTags().stream())
                .map(Tag::getValue)
                .collect(Collectors.toSet());

        assertThat(tagValues).noneMatch(value -> value.startsWith("order-"));
        assertThat(registry.getMeters()).hasSizeLessThan(30); // a fixed set, not one per id
    }

    @Test
    void timersRecordInTheRegistrysBaseTimeUnit() {
        assertThat(registry.get(LanesMicrometer.QUEUE_WAIT).timer().count()).isEqualTo(IDS);
        assertThat(registry.get(LanesMicrometer.QUEUE_WAIT).timer().baseTimeUnit())
                .isEqualTo(TimeUnit.SECONDS);
    }

    private Set<String> outcomeTags(String name) {
        return registry.find(name).meters().stream()
                .map(meter -> meter.getId().getTag(LanesMicrometer.OUTCOME_TAG))
                .collect(Collectors.toSet());
    }
}
