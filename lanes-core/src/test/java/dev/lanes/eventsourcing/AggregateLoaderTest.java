package dev.lanes.eventsourcing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.modeling.AggregateState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** {@link AggregateLoader}: a snapshot plus the streams after it; an id of another aggregate type is refused. */
class AggregateLoaderTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final NamedAggregate INVOICE = NamedAggregate.of("billing", "invoice");
    private static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");

    record Issue(int amount) {}

    record Issued(int amount) {}

    private final EventStore eventStore = EventStores.inMemory();
    private final SnapshotStore snapshotStore = SnapshotStores.inMemory();

    private static AggregateDefinition<Integer> totals(NamedAggregate type) {
        return AggregateDefinition.<Integer>builder(type, id -> 0)
                .handle(Issue.class, (total, issue) -> List.of(new Issued(issue.amount())))
                .apply(Issued.class, (total, issued) -> total + issued.amount())
                .build();
    }

    private final AggregateLoader<Integer> invoices = new AggregateLoader<>(totals(INVOICE), eventStore, snapshotStore);

    private void append(AggregateId id, int version, int amount) {
        eventStore
                .append(DomainEventStream.of(
                        CommandMessage.of(id, new Issue(amount)), version, List.of(new Issued(amount))))
                .block(TIMEOUT);
    }

    private static void refusedNamingBothTypes(Mono<AggregateState<Integer>> loading) {
        StepVerifier.create(loading)
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("AggregateLoader of billing.invoice")
                        .hasMessageContaining("sales.order/o-1")
                        .hasMessageContaining("aggregate type sales.order"))
                .verify(TIMEOUT);
    }

    @Test
    void theSnapshotAndTheStreamsAfterItMakeTheState() {
        AggregateId invoice = AggregateId.of(INVOICE, "i-1");
        append(invoice, 1, 10);
        append(invoice, 2, 20);
        snapshotStore.save(new Snapshot(invoice, 2, 30, Instant.EPOCH)).block(TIMEOUT);
        append(invoice, 3, 5);

        AggregateState<Integer> state = invoices.load(invoice).block(TIMEOUT);

        assertThat(state).isEqualTo(new AggregateState<>(invoice, 3, 35));
    }

    @Test
    void anIdOfAnotherAggregateTypeWithStreamsIsRefusedNamingBothTypes() {
        AggregateId order = AggregateId.of(ORDER, "o-1");
        append(order, 1, 10);

        refusedNamingBothTypes(invoices.load(order));
    }

    @Test
    void anIdOfAnotherAggregateTypeWithASnapshotIsRefusedNamingBothTypes() {
        AggregateId order = AggregateId.of(ORDER, "o-1");
        append(order, 1, 10);
        snapshotStore.save(new Snapshot(order, 1, 10, Instant.EPOCH)).block(TIMEOUT);

        refusedNamingBothTypes(invoices.load(order));
    }

    @Test
    void anIdOfAnotherAggregateTypeWithNothingStoredIsRefusedRatherThanGivenAnInitialState() {
        refusedNamingBothTypes(invoices.load(AggregateId.of(ORDER, "o-1")));
    }

    @Test
    void anIdOfTheSameAggregateNameInAnotherContextIsRefused() {
        AggregateId elsewhere = AggregateId.of(NamedAggregate.of("sales", "invoice"), "o-1");

        StepVerifier.create(invoices.load(elsewhere))
                .expectErrorSatisfies(error -> assertThat(error)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("sales.invoice/o-1"))
                .verify(TIMEOUT);
    }
}
