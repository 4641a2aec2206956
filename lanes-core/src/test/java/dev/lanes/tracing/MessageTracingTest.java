package dev.lanes.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandGateways;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.processing.EventProcessor;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.awaitility.Awaitility;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * What the runtime tells a {@link MessageTracing} and what it carries for it: each send, lane attempt and handling is
 * ended once with its outcome, the lane's steps come in order, a lane's trace headers are stored with its events, a
 * handling's reach the saga's commands whatever the saga's propagation list, and without tracing no header is added.
 */
class MessageTracingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    private static final NamedAggregate INVOICE = NamedAggregate.of("shop", "invoice");

    record Place(int items) {}

    record Placed(int items) {}

    record Issue(int items) {}

    record Issued(int items) {}

    /** Records what it is told; its context is the name of the trace, carried in {@code traceparent}. */
    static final class Recording implements MessageTracing {
        final ConcurrentLinkedQueue<String> log = new ConcurrentLinkedQueue<>();

        @Override
        public MessageTrace send(CommandMessage command, ContextView context) {
            return trace("send " + command.command().getClass().getSimpleName(), command.headers());
        }

        @Override
        public MessageTrace command(CommandMessage command) {
            return trace("lane " + command.command().getClass().getSimpleName(), command.headers());
        }

        @Override
        public MessageTrace handling(String processor, String kind, DomainEventStream stream) {
            return trace(kind + " " + processor, stream.headers());
        }

        private MessageTrace trace(String name, Map<String, String> headers) {
            log.add("start " + name + " <- " + headers.get(TRACEPARENT));
            return new MessageTrace() {
                @Override
                public Map<String, String> headers(Map<String, String> carried) {
                    Map<String, String> copy = new HashMap<>(carried);
                    copy.put(TRACEPARENT, name);
                    return copy;
                }

                @Override
                public void step(Step step) {
                    log.add(name + " " + step);
                }

                @Override
                public void end(@Nullable Throwable error) {
                    log.add("end " + name + (error == null ? "" : " " + error.getMessage()));
                }
            };
        }
    }

    private final Recording recording = new Recording();
    private final EventStore store = EventStores.inMemory();
    private Lanes lanes;

    private Lanes start(MessageTracing tracing) {
        lanes = Lanes.builder()
                .aggregate(AggregateDefinition.<Integer>builder(ORDER, id -> 0)
                        .handle(Place.class, (items, place) -> {
                            if (place.items() < 0) {
                                throw new IllegalArgumentException("no negative order");
                            }
                            return List.of(new Placed(place.items()));
                        })
                        .apply(Placed.class, (items, placed) -> placed.items())
                        .build())
                .aggregate(AggregateDefinition.<Integer>builder(INVOICE, id -> 0)
                        .handle(Issue.class, (items, issue) -> List.of(new Issued(issue.items())))
                        .apply(Issued.class, (items, issued) -> issued.items())
                        .build())
                .eventStore(store)
                .tracing(tracing)
                .processor(MessageTracingTest::invoicing)
                .build()
                .start();
        return lanes;
    }

    private static EventProcessor invoicing(CommandGateway gateway) {
        return EventProcessor.saga("Invoicing", gateway)
                .on(ORDER, Placed.class, (placed, context) -> {
                    context.send(
                            AggregateId.of(
                                    INVOICE, context.event().aggregateId().id()),
                            new Issue(placed.items()));
                    return Mono.empty();
                })
                .propagateHeaders("tenant") // its own list: the trace context is on it all the same
                .build();
    }

    @AfterEach
    void stop() {
        if (lanes != null) {
            lanes.stop();
        }
    }

    @Test
    void eachStepIsTracedInOrderAndTheContextFollowsTheEventsAndTheSagasCommand() {
        String id = UUID.randomUUID().toString();
        start(recording)
                .gateway()
                .send(AggregateId.of(ORDER, id), new Place(2), WaitStage.PROCESSED)
                .block(TIMEOUT);
        DomainEventStream invoice = awaitSingle(AggregateId.of(INVOICE, id));
        Awaitility.await().atMost(TIMEOUT).until(() -> recording.log.contains("end saga Invoicing"));

        assertThat(single(AggregateId.of(ORDER, id)).headers()).containsEntry(MessageTracing.TRACEPARENT, "lane Place");
        assertThat(invoice.headers()).containsEntry(MessageTracing.TRACEPARENT, "lane Issue");
        assertThat(recording.log)
                .containsSubsequence(
                        "start send Place <- null",
                        "start lane Place <- send Place",
                        "lane Place LOAD",
                        "lane Place DECIDE",
                        "lane Place APPEND",
                        "lane Place PUBLISH",
                        "end lane Place")
                .containsSubsequence(
                        "start saga Invoicing <- lane Place",
                        "start send Issue <- saga Invoicing",
                        "start lane Issue <- send Issue",
                        "end lane Issue")
                .containsOnlyOnce("end lane Place", "end send Place", "end saga Invoicing");
    }

    @Test
    void aFailedCommandEndsItsLaneAndItsSendWithTheHandlersError() {
        Lanes started = start(recording);

        assertThatThrownBy(() -> started.gateway()
                        .send(AggregateId.of(ORDER, "o-1"), new Place(-1), WaitStage.PROCESSED)
                        .block(TIMEOUT))
                .hasMessageContaining("no negative order");

        Awaitility.await()
                .atMost(TIMEOUT)
                .untilAsserted(() -> assertThat(recording.log)
                        .containsSubsequence(
                                "start lane Place <- send Place", "lane Place LOAD", "end lane Place no negative order")
                        .contains("end send Place no negative order")
                        .doesNotContain("lane Place DECIDE"));
    }

    @Test
    void withoutTracingNoHeaderIsAddedAndTheGatewayIsNotWrapped() {
        String id = UUID.randomUUID().toString();
        start(MessageTracing.NONE)
                .gateway()
                .send(AggregateId.of(ORDER, id), new Place(2), WaitStage.PROCESSED)
                .block(TIMEOUT);

        assertThat(awaitSingle(AggregateId.of(INVOICE, id)).headers()).doesNotContainKeys(MessageTracing.TRACEPARENT);
        assertThat(single(AggregateId.of(ORDER, id)).headers()).doesNotContainKeys(MessageTracing.TRACEPARENT);
        CommandGateway gateway = lanes.gateway();
        assertThat(CommandGateways.traced(gateway, MessageTracing.NONE)).isSameAs(gateway);
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
