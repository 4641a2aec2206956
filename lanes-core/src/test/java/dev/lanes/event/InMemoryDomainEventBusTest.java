package dev.lanes.event;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.flow.IntakeGate;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.test.logging.LogCapture;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.test.StepVerifier;

/** Publishing never waits for a consumer group; a group at its budget closes the intake gate of its type. */
class InMemoryDomainEventBusTest {
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    private static final Duration PROMPTLY = Duration.ofSeconds(5);

    @RegisterExtension
    final LogCapture logs = LogCapture.standardError();

    private static DomainEventStream stream(int i) {
        return DomainEventStream.of(
                CommandMessage.of(AggregateId.of(ORDER, "o-" + i), "Place"), 1, List.of("Placed " + i));
    }

    @Test
    void publishCompletesAtOnceEvenWhenAGroupTakesNothing() {
        InMemoryDomainEventBus bus = new InMemoryDomainEventBus(8);
        bus.receive("Stuck", ORDER).subscribe(new reactor.core.publisher.BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(org.reactivestreams.Subscription subscription) {}
        });

        for (int i = 0; i < 100; i++) {
            StepVerifier.create(bus.publish(stream(i))).expectComplete().verify(PROMPTLY);
        }
        assertThat(bus.intakeGate(ORDER).isOpen())
                .as("the group is past its budget")
                .isFalse();
    }

    @Test
    void theGateOfATypeClosesAtAGroupsBudgetAndOpensWhenItIsBackToHalf() {
        InMemoryDomainEventBus bus = new InMemoryDomainEventBus(8);
        IntakeGate gate = bus.intakeGate(ORDER);
        StepVerifier.FirstStep<MessageExchange<DomainEventStream>> consumer =
                StepVerifier.create(bus.receive("Projection", ORDER), 0);
        for (int i = 0; i < 8; i++) {
            bus.publish(stream(i)).block(PROMPTLY);
        }
        assertThat(gate.isOpen()).isFalse();
        assertThat(bus.intakeGate(NamedAggregate.of("shop", "invoice")).isOpen())
                .as("other types are not paced by this group")
                .isTrue();

        consumer.thenRequest(3)
                .expectNextCount(3)
                .then(() -> assertThat(gate.isOpen()).as("5 of 8 left").isFalse())
                .thenRequest(1)
                .expectNextCount(1)
                .then(() -> assertThat(gate.isOpen()).as("4 of 8 left").isTrue())
                .thenCancel()
                .verify(PROMPTLY);
    }

    @Test
    void aGroupThatGoesAwayNoLongerHoldsTheGate() {
        InMemoryDomainEventBus bus = new InMemoryDomainEventBus(8);
        reactor.core.Disposable consumer =
                bus.receive("Leaving", ORDER).subscribe(exchange -> {}, error -> {}, () -> {}, subscription -> {});
        for (int i = 0; i < 8; i++) {
            bus.publish(stream(i)).block(PROMPTLY);
        }
        assertThat(bus.intakeGate(ORDER).isOpen()).isFalse();

        consumer.dispose();

        assertThat(bus.intakeGate(ORDER).isOpen()).isTrue();
        StepVerifier.create(bus.publish(stream(9))).expectComplete().verify(PROMPTLY);
        assertThat(logs.lines(Level.WARN))
                .as("what the gone group misses is a warning naming the group and the stream")
                .singleElement()
                .satisfies(line -> assertThat(line.message())
                        .contains("consumer group 'Leaving' is gone")
                        .contains("shop.order/o-9"));
    }
}
