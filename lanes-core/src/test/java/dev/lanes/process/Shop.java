package dev.lanes.process;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.deadline.DeadlineStore;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/** A tiny shop for the process manager tests: orders and payments emit what they are told, a warehouse records. */
final class Shop {
    static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    static final NamedAggregate PAYMENT = NamedAggregate.of("shop", "payment");
    static final NamedAggregate WAREHOUSE = NamedAggregate.of("shop", "warehouse");
    static final NamedAggregate FULFILMENT = NamedAggregate.of("shop", "fulfilment");

    record Emit(List<Object> events) {}

    record OrderPlaced(String orderId, int step) {}

    record OrderAmended(String orderId, int step) {}

    record PaymentReceived(String orderId) {}

    record Reserve(String orderId) {}

    record Ship(String orderId) {}

    record Cancel(String orderId, String reason) {}

    record Recorded(Object command) {}

    /** The process state: what it saw, in order. */
    record Fulfilment(String orderId, List<String> seen) {
        Fulfilment with(String input) {
            List<String> next = new java.util.ArrayList<>(seen);
            next.add(input);
            return new Fulfilment(orderId, List.copyOf(next));
        }
    }

    final Queue<Object> received = new ConcurrentLinkedQueue<>();

    static AggregateId order(String id) {
        return AggregateId.of(ORDER, id);
    }

    static AggregateId payment(String id) {
        return AggregateId.of(PAYMENT, id);
    }

    static AggregateId warehouse(String orderId) {
        return AggregateId.of(WAREHOUSE, orderId);
    }

    AggregateDefinition<String> emitter(NamedAggregate type) {
        return AggregateDefinition.builder(type, id -> "")
                .handle(Emit.class, (state, emit) -> emit.events())
                .handle(Cancel.class, (state, cancel) -> {
                    received.add(cancel);
                    return List.of(new Recorded(cancel));
                })
                .apply(Object.class, (state, event) -> state)
                .build();
    }

    AggregateDefinition<String> warehouse() {
        return AggregateDefinition.builder(WAREHOUSE, id -> "")
                .handle(Reserve.class, (state, reserve) -> {
                    received.add(reserve);
                    return List.of(new Recorded(reserve));
                })
                .handle(Ship.class, (state, ship) -> {
                    received.add(ship);
                    return List.of(new Recorded(ship));
                })
                .apply(Object.class, (state, event) -> state)
                .build();
    }

    /** Placed: reserve, await payment 15 minutes; paid: ship and end; deadline: cancel and end. */
    static ProcessManager.Builder<Fulfilment> fulfilment(DeadlineStore deadlines, Clock clock) {
        return ProcessManager.builder("fulfilment", FULFILMENT, Fulfilment.class, key -> new Fulfilment(key, List.of()))
                .startOn(ORDER, OrderPlaced.class, OrderPlaced::orderId, (state, placed, context) -> {
                    context.send(warehouse(placed.orderId()), new Reserve(placed.orderId()))
                            .scheduleAfter("payment-due", Duration.ofMinutes(15));
                    return state.with("placed");
                })
                .on(PAYMENT, PaymentReceived.class, PaymentReceived::orderId, (state, paid, context) -> {
                    context.send(warehouse(paid.orderId()), new Ship(paid.orderId()))
                            .end("shipped");
                    return state.with("paid");
                })
                .onDeadline("payment-due", (state, due, context) -> {
                    context.send(order(state.orderId()), new Cancel(state.orderId(), "no payment"))
                            .end("cancelled");
                    return state.with("payment-due");
                })
                .deadlines(deadlines, clock);
    }

    Lanes.Builder lanes(ProcessManager<?> process, EventStore store, DeadLetterQueue deadLetters) {
        return Lanes.builder()
                .aggregate(emitter(ORDER))
                .aggregate(emitter(PAYMENT))
                .aggregate(warehouse())
                .processManager(process)
                .eventStore(store)
                .deadLetterQueue(deadLetters)
                .commandSettings(LaneSettings.DEFAULT
                        .withStrategy(LaneStrategy.KEYED)
                        .withRetryPolicy(RetryPolicy.DEFAULT
                                .withMaxRetries(2)
                                .withBackoff(Duration.ofMillis(1), Duration.ofMillis(1))))
                .shutdownTimeout(Duration.ofSeconds(10));
    }

    /** The instance's state as its stored streams give it. */
    static <S> ProcessInstance<S> instance(ProcessManager<S> process, EventStore store, String key) {
        AggregateDefinition<ProcessInstance<S>> definition = process.definition();
        AggregateId id = process.instance(key);
        var state = definition.initial(id);
        for (DomainEventStream stream : store.load(id, 1).collectList().block(Duration.ofSeconds(10))) {
            state = definition.evolve(
                    state,
                    stream.version(),
                    stream.events().stream().map(event -> event.payload()).toList());
        }
        return state.state();
    }
}
