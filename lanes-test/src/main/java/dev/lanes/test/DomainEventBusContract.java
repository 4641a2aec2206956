package dev.lanes.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.event.DomainEventBus;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * The behaviour every {@link DomainEventBus} must show, as its Javadoc promises it. Extend it and make a new bus per
 * test; each test declares its consumer groups' receivers, then calls {@link #open} (a distributed bus starts its
 * consumers there), then publishes each aggregate's streams in version order, as the command side does.
 *
 * <p>Delivery is taken as at least once: a stream the bus marks {@link
 * dev.lanes.dispatch.MessageExchange#mayBeRedelivered()} may come again; order is checked on first deliveries.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
public abstract class DomainEventBusContract {
    /** The aggregate type of the tests' streams. */
    protected static final NamedAggregate ORDER = NamedAggregate.of("contract", "order");

    /** Another type, which the tests' groups do not receive. */
    protected static final NamedAggregate INVOICE = NamedAggregate.of("contract", "invoice");

    /** How long a delivery may take. */
    protected static final Duration WAIT = Duration.ofSeconds(30);

    private @Nullable DomainEventBus bus;

    /** A new bus, no receiver declared yet. */
    protected abstract DomainEventBus createBus();

    /** Makes the bus deliver once the test declared its receivers (consumers start); nothing by default. */
    protected void open(DomainEventBus bus) {}

    /** Releases the bus after each test; nothing by default. */
    protected void close(DomainEventBus bus) {}

    @BeforeEach
    final void createTheBus() {
        bus = createBus();
    }

    @AfterEach
    final void closeTheBus() {
        close(bus());
    }

    private DomainEventBus bus() {
        return java.util.Objects.requireNonNull(bus, "createBus() returned null or was not called");
    }

    private static DomainEventStream stream(NamedAggregate type, String aggregate, int version) {
        CommandMessage command = CommandMessage.of(AggregateId.of(type, aggregate), "Change " + version);
        return DomainEventStream.of(command, version, List.of("Changed " + aggregate + " v" + version));
    }

    @Test
    void publishCompletesWithoutWaitingForAGroupToTakeTheStream() {
        DomainEventBus bus = bus();
        Received<DomainEventStream> idle = Received.withoutDemand();
        bus.receive("Idle", ORDER).subscribe(idle);
        open(bus);

        for (int version = 1; version <= 20; version++) {
            StepVerifier.create(bus.publish(stream(ORDER, "o-idle", version)))
                    .expectComplete()
                    .verify(WAIT);
        }
        idle.requestAll();
        await().atMost(WAIT).until(() -> first(idle).size() == 20);
    }

    @Test
    void everyGroupSeesEveryStreamOfItsTypeAndEachAggregateInVersionOrder() {
        DomainEventBus bus = bus();
        Received<DomainEventStream> projection = Received.acknowledging();
        Received<DomainEventStream> audit = Received.acknowledging();
        bus.receive("Projection", ORDER).subscribe(projection);
        bus.receive("Audit", ORDER).subscribe(audit);
        open(bus);
        List<List<DomainEventStream>> published = new ArrayList<>();
        for (int a = 0; a < 6; a++) {
            List<DomainEventStream> streams = new ArrayList<>();
            for (int version = 1; version <= 20; version++) {
                streams.add(stream(ORDER, "o-" + a, version));
            }
            published.add(streams);
        }
        List<String> keys = new ArrayList<>();
        published.forEach(streams -> streams.forEach(stream -> keys.add(key(stream))));

        Flux.fromIterable(published)
                .flatMap(streams -> Flux.fromIterable(streams).concatMap(bus::publish))
                .blockLast(WAIT);

        for (Received<DomainEventStream> group : List.of(projection, audit)) {
            await().atMost(WAIT).until(() -> first(group).size() == 120);
            assertThat(byAggregate(first(group))).containsExactlyInAnyOrderEntriesOf(byAggregate(keys));
        }
    }

    @Test
    void aGroupReceivesOnlyTheTypesItDeclared() {
        DomainEventBus bus = bus();
        Received<DomainEventStream> orders = Received.acknowledging();
        Received<DomainEventStream> invoices = Received.acknowledging();
        bus.receive("Orders", ORDER).subscribe(orders);
        bus.receive("Invoices", INVOICE).subscribe(invoices);
        open(bus);

        bus.publish(stream(INVOICE, "i-1", 1)).block(WAIT);
        bus.publish(stream(ORDER, "o-1", 1)).block(WAIT);

        await().atMost(WAIT)
                .until(() -> first(orders).size() == 1 && first(invoices).size() == 1);
        assertThat(first(orders)).containsExactly(ORDER.materialize() + "/o-1@v1");
        assertThat(first(invoices)).containsExactly(INVOICE.materialize() + "/i-1@v1");
    }

    /** Each stream as {@code <aggregate id>@v<version>}, in the order of its first delivery. */
    private static List<String> first(Received<DomainEventStream> receiver) {
        List<String> first = new ArrayList<>();
        for (DomainEventStream stream : receiver.messages()) {
            if (!first.contains(key(stream))) {
                first.add(key(stream));
            }
        }
        return first;
    }

    private static String key(DomainEventStream stream) {
        return stream.aggregateId().namedAggregate() + "/"
                + stream.aggregateId().id() + "@v" + stream.version();
    }

    private static Map<String, List<String>> byAggregate(List<String> keys) {
        Map<String, List<String>> byAggregate = new LinkedHashMap<>();
        keys.forEach(key -> byAggregate
                .computeIfAbsent(key.substring(0, key.indexOf('@')), id -> new ArrayList<>())
                .add(key));
        return byAggregate;
    }
}
