package dev.lanes.command;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.flow.IntakeGate;
import dev.lanes.messaging.CommandMessage;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** New commands are bounded and paced by the intake gate; a saga's follow-ups are neither refused nor held. */
class InMemoryCommandBusTest {
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    private static final Duration PROMPTLY = Duration.ofSeconds(5);

    private final CommandResults results = new CommandResults();
    private final InMemoryCommandBus bus = new InMemoryCommandBus(8, results);

    private static CommandMessage command(String id) {
        return CommandMessage.of(AggregateId.of(ORDER, id), "Place");
    }

    private static CommandMessage followUp(String id) {
        return command(id).withHeader(CommandMessage.CAUSE_HEADER, "order/o-0/1");
    }

    @Test
    void whileTheGateIsClosedNewCommandsWaitInTheBusAndFollowUpsFlow() {
        IntakeGate gate = new IntakeGate("event side");
        gate.hold();
        StepVerifier.FirstStep<String> received = StepVerifier.create(
                bus.receive(ORDER, gate).map(exchange -> exchange.aggregateId().id()));
        bus.send(command("new")).block(PROMPTLY);
        bus.send(followUp("follow-up")).block(PROMPTLY);

        received.expectNext("follow-up")
                .expectNoEvent(Duration.ofMillis(50))
                .then(gate::release)
                .expectNext("new")
                .thenCancel()
                .verify(PROMPTLY);
    }

    @Test
    void aFollowUpIsTakenWhenTheBusIsFullOfNewCommands() {
        bus.receive(ORDER);
        for (int i = 0; i < 8; i++) {
            bus.send(command("c" + i)).block(PROMPTLY);
        }
        StepVerifier.create(bus.send(command("one-too-many")))
                .expectError(CommandBusOverloadedException.class)
                .verify(PROMPTLY);

        StepVerifier.create(bus.send(followUp("credit"))).expectComplete().verify(PROMPTLY);
    }

    @Test
    void commandsHeldWhenTheReceiverGoesAwayAreAnsweredAsStopped() {
        CommandMessage held = command("held");
        var outcome = results.track(held, WaitStage.PROCESSED, Duration.ofSeconds(30))
                .outcome()
                .toFuture();
        reactor.core.publisher.Flux<MessageExchange<CommandMessage>> commands = bus.receive(ORDER);
        bus.send(held).block(PROMPTLY);
        assertThat(outcome).isNotDone();

        reactor.core.publisher.BaseSubscriber<MessageExchange<CommandMessage>> receiver =
                new reactor.core.publisher.BaseSubscriber<>() {
                    @Override
                    protected void hookOnSubscribe(org.reactivestreams.Subscription subscription) {}
                };
        commands.subscribe(receiver); // takes nothing
        receiver.dispose();

        assertThat(outcome).isCompletedExceptionally();
        assertThat(results.inFlight()).isZero();
    }

    /**
     * A route holds a power of two of commands: a capacity beyond the largest one it can hold must be refused, not
     * silently turned into another bound ({@code Integer.MAX_VALUE} held 8).
     */
    @Test
    void aCapacityBeyondWhatARouteCanHoldIsRefusedNamingTheValue() {
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> new InMemoryCommandBus(Integer.MAX_VALUE, new CommandResults()))
                .withMessageContaining("capacityPerType")
                .withMessageContaining(String.valueOf(Integer.MAX_VALUE));
    }
}
