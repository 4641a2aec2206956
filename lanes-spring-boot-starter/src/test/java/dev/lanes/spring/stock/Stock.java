package dev.lanes.spring.stock;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.modeling.CommandRejectedException;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Positive;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** The endpoint tests' domain: one SKU's stock, and commands that hold, conflict or break a rule on demand. */
public final class Stock {
    public static final NamedAggregate STOCK = NamedAggregate.of("shop", "stock");

    /** Adds stock; validated with Bean Validation. */
    public record Receive(@Positive long quantity, @NotBlank String note) {}

    /** Takes stock if there is enough, else {@link OutOfStock}. */
    public record Reserve(long quantity) {}

    /** Waits at {@link Gates#enter} until the test releases the gate. */
    public record Hold(String gate) {}

    /** Another writer appends first, every time it is decided: a version conflict. */
    public record Contend() {}

    public record Received(long quantity) {}

    public record Reserved(long quantity) {}

    public record Held() {}

    /** The state: its id (so a test writer can append next to it), its version and what is on hand. */
    public record Level(AggregateId id, int version, long onHand) {
        Level next(long delta) {
            return new Level(id, version + 1, onHand + delta);
        }
    }

    /** A business rule: not enough on hand. */
    public static final class OutOfStock extends CommandRejectedException {
        private static final long serialVersionUID = 1L;

        OutOfStock(long onHand, long wanted) {
            super("out of stock: " + onHand + " on hand, " + wanted + " wanted");
        }
    }

    /** Named gates a {@link Hold} waits at: entered once the handler runs, open once the test releases it. */
    public static final class Gates {
        private final Map<String, CountDownLatch> entered = new ConcurrentHashMap<>();
        private final Map<String, Sinks.Empty<Void>> released = new ConcurrentHashMap<>();

        public CountDownLatch entered(String gate) {
            return entered.computeIfAbsent(gate, name -> new CountDownLatch(1));
        }

        public void release(String gate) {
            released(gate).tryEmitEmpty();
        }

        private Sinks.Empty<Void> released(String gate) {
            return released.computeIfAbsent(gate, name -> Sinks.empty());
        }

        Mono<Void> enter(String gate) {
            entered(gate).countDown();
            return released(gate).asMono();
        }
    }

    private Stock() {}

    public static AggregateDefinition<Level> definition(Gates gates, EventStore store) {
        return AggregateDefinition.<Level>builder(STOCK, id -> new Level(id, 0, 0))
                .handle(Receive.class, (level, receive) -> List.of(new Received(receive.quantity())))
                .handle(Reserve.class, (level, reserve) -> {
                    if (reserve.quantity() > level.onHand()) {
                        throw new OutOfStock(level.onHand(), reserve.quantity());
                    }
                    return List.of(new Reserved(reserve.quantity()));
                })
                .handleAsync(
                        Hold.class, (level, hold) -> gates.enter(hold.gate()).thenReturn(new Held()))
                .handle(Contend.class, (level, contend) -> {
                    String other = UUID.randomUUID().toString();
                    store.append(new DomainEventStream(
                                    other,
                                    level.id(),
                                    level.version() + 1,
                                    "other-" + other,
                                    other,
                                    List.of(new DomainEvent(1, new Received(1))),
                                    Instant.now().truncatedTo(ChronoUnit.MICROS),
                                    Map.of()))
                            .block();
                    return List.of(new Received(1));
                })
                .apply(Received.class, (level, received) -> level.next(received.quantity()))
                .apply(Reserved.class, (level, reserved) -> level.next(-reserved.quantity()))
                .apply(Held.class, (level, held) -> level.next(0))
                .build();
    }
}
