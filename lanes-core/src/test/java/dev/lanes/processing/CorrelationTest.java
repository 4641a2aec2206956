package dev.lanes.processing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * One request is followed end to end: the command's events, the saga's command and that command's events carry the
 * request's correlation id, each names its cause, and only the headers the saga lets through travel with them.
 */
class CorrelationTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    private static final NamedAggregate INVOICE = NamedAggregate.of("shop", "invoice");

    record Place(int items) {}

    record Placed(int items) {}

    record Issue(int items) {}

    record Issued(int items) {}

    private final EventStore store = EventStores.inMemory();
    private final Lanes lanes = Lanes.builder()
            .aggregate(AggregateDefinition.<Integer>builder(ORDER, id -> 0)
                    .handle(Place.class, (items, place) -> List.of(new Placed(place.items())))
                    .apply(Placed.class, (items, placed) -> placed.items())
                    .build())
            .aggregate(AggregateDefinition.<Integer>builder(INVOICE, id -> 0)
                    .handle(Issue.class, (items, issue) -> List.of(new Issued(issue.items())))
                    .apply(Issued.class, (items, issued) -> issued.items())
                    .build())
            .eventStore(store)
            .processor(CorrelationTest::invoicing)
            .build()
            .start();

    private static EventProcessor invoicing(CommandGateway gateway) {
        return EventProcessor.saga("Invoicing", gateway)
                .on(ORDER, Placed.class, (placed, context) -> {
                    context.send(
                            AggregateId.of(
                                    INVOICE, context.event().aggregateId().id()),
                            new Issue(placed.items()));
                    return Mono.empty();
                })
                .propagateHeaders("tenant")
                .build();
    }

    @AfterEach
    void stop() {
        lanes.stop();
    }

    @Test
    void aCallersCorrelationIdAndAllowedHeadersReachTheSagasCommandAndItsEventsAndOtherHeadersStayBehind() {
        String id = UUID.randomUUID().toString();
        CommandMessage place = new CommandMessage(
                "place-" + id,
                AggregateId.of(ORDER, id),
                "place-" + id,
                new Place(3),
                Instant.now(),
                Map.of(CommandMessage.CORRELATION_HEADER, "corr-" + id, "tenant", "t-1", "secret", "s-1"));

        lanes.gateway().send(place, WaitStage.PROCESSED).block(TIMEOUT);
        DomainEventStream order = single(AggregateId.of(ORDER, id));
        DomainEventStream invoice = awaitSingle(AggregateId.of(INVOICE, id));

        assertThat(order.correlationId()).isEqualTo("corr-" + id);
        assertThat(order.causationId()).isEqualTo("place-" + id);
        assertThat(invoice.correlationId()).isEqualTo("corr-" + id);
        assertThat(invoice.headers())
                .containsEntry("tenant", "t-1")
                .containsEntry(CommandMessage.CAUSE_HEADER, order.id() + "/1")
                .doesNotContainKey("secret");
        assertThat(invoice.causationId()).isNotEqualTo(place.messageId());
    }

    @Test
    void withoutACallersCorrelationIdTheFirstCommandsIdIsTheRequestsCorrelationId() {
        String id = UUID.randomUUID().toString();
        CommandMessage place = CommandMessage.of(AggregateId.of(ORDER, id), new Place(1));

        lanes.gateway().send(place, WaitStage.PROCESSED).block(TIMEOUT);
        DomainEventStream invoice = awaitSingle(AggregateId.of(INVOICE, id));

        assertThat(single(AggregateId.of(ORDER, id)).correlationId()).isEqualTo(place.messageId());
        assertThat(invoice.correlationId()).isEqualTo(place.messageId());
        assertThat(invoice.headers()).doesNotContainKey("tenant");
    }

    private DomainEventStream single(AggregateId id) {
        List<DomainEventStream> streams =
                Objects.requireNonNull(store.load(id, 1).collectList().block(TIMEOUT));
        assertThat(streams).hasSize(1);
        return streams.get(0);
    }

    private DomainEventStream awaitSingle(AggregateId id) {
        Awaitility.await()
                .atMost(TIMEOUT)
                .until(() -> store.load(id, 1).hasElements().block(TIMEOUT));
        return single(id);
    }
}
