package dev.lanes.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandBus;
import dev.lanes.command.CommandBusOverloadedException;
import dev.lanes.command.CommandGateways;
import dev.lanes.command.CommandResults;
import dev.lanes.command.UnknownAggregateTypeException;
import dev.lanes.command.WaitStage;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.flow.IntakeGate;
import dev.lanes.messaging.CommandMessage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * The behaviour every {@link CommandBus} must show, as its Javadoc and {@link dev.lanes.dispatch.MessageExchange}'s
 * promise it. Extend it and make a new bus per test:
 *
 * <pre>{@code
 * class KafkaCommandBusContractTest extends CommandBusContract {
 *     protected CommandBus createBus(CommandResults results) { ... }
 *     protected void open(CommandBus bus) { ... start its consumer ... }
 *     protected void close(CommandBus bus) { ... }
 * }
 * }</pre>
 *
 * <p>Each test declares its receivers on the new bus, then calls {@link #open} (a distributed bus starts its consumers
 * there), then sends. Delivery is taken as at least once: a message the bus marks {@link
 * dev.lanes.dispatch.MessageExchange#mayBeRedelivered()} may come again; order is checked on the first deliveries. Only
 * a bus that {@linkplain #capacityPerType() bounds} what it holds is checked for fail-fast overload.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
public abstract class CommandBusContract {
    /** The aggregate type the tests' receivers declare. */
    protected static final NamedAggregate ORDER = NamedAggregate.of("contract", "order");

    /** A type no receiver declares. */
    protected static final NamedAggregate UNDECLARED = NamedAggregate.of("contract", "undeclared");

    /** How long a delivery may take. */
    protected static final Duration WAIT = Duration.ofSeconds(30);

    private final CommandResults results = new CommandResults();
    private @Nullable CommandBus bus;

    /** A new bus, no receiver declared yet, reporting to {@code results} as the command side's bus does. */
    protected abstract CommandBus createBus(CommandResults results);

    /** Makes the bus deliver once the test declared its receivers (a consumer starts); nothing by default. */
    protected void open(CommandBus bus) {}

    /** Releases the bus after each test; nothing by default. */
    protected void close(CommandBus bus) {}

    /** The bound on new commands the bus holds per type, or empty when its buffer is durable storage. */
    protected OptionalInt capacityPerType() {
        return OptionalInt.empty();
    }

    @BeforeEach
    final void createTheBus() {
        bus = createBus(results);
    }

    @AfterEach
    final void closeTheBus() {
        close(bus());
    }

    private CommandBus bus() {
        return java.util.Objects.requireNonNull(bus, "createBus() returned null or was not called");
    }

    private static CommandMessage command(String aggregate, Object payload) {
        return CommandMessage.of(AggregateId.of(ORDER, aggregate), payload);
    }

    @Test
    void aCommandOfATypeNoReceiverDeclaredIsRefused() {
        CommandBus bus = bus();
        bus.receive(ORDER).subscribe(Received.acknowledging());
        open(bus);

        StepVerifier.create(bus.send(CommandMessage.of(AggregateId.of(UNDECLARED, "u-1"), "Place")))
                .expectError(UnknownAggregateTypeException.class)
                .verify(WAIT);
    }

    @Test
    void aDeclarationTakesEffectBeforeTheFluxIsSubscribed() {
        CommandBus bus = bus();
        Flux<dev.lanes.dispatch.MessageExchange<CommandMessage>> commands = bus.receive(ORDER);
        open(bus);
        CommandMessage early = command("o-early", "Place");

        StepVerifier.create(bus.send(early)).expectComplete().verify(WAIT);
        Received<CommandMessage> receiver = Received.acknowledging();
        commands.subscribe(receiver);

        await().atMost(WAIT).until(() -> ids(receiver.messages()).contains(early.messageId()));
    }

    @Test
    void everyCommandIsDeliveredAndEachAggregateKeepsItsSendOrder() {
        CommandBus bus = bus();
        Received<CommandMessage> receiver = Received.acknowledging();
        bus.receive(ORDER).subscribe(receiver);
        open(bus);
        Map<String, List<CommandMessage>> sent = new LinkedHashMap<>();
        for (int a = 0; a < 8; a++) {
            List<CommandMessage> commands = new ArrayList<>();
            for (int i = 0; i < 25; i++) {
                commands.add(command("o-" + a, "step " + i));
            }
            sent.put("o-" + a, commands);
        }

        Flux.fromIterable(sent.values())
                .flatMap(commands -> Flux.fromIterable(commands).concatMap(bus::send))
                .blockLast(WAIT);

        await().atMost(WAIT).until(() -> firstDeliveries(receiver).size() == 200);
        List<String> delivered = firstDeliveries(receiver);
        sent.forEach((aggregate, commands) -> assertThat(delivered)
                .as("commands of %s, in send order", aggregate)
                .filteredOn(ids(commands)::contains)
                .containsExactlyElementsOf(ids(commands)));
    }

    /** The message ids in the order of their first delivery (a redelivery comes again with the same id). */
    private static List<String> firstDeliveries(Received<CommandMessage> receiver) {
        List<String> first = new ArrayList<>();
        for (CommandMessage command : receiver.messages()) {
            if (!first.contains(command.messageId())) {
                first.add(command.messageId());
            }
        }
        return first;
    }

    private static List<String> ids(List<CommandMessage> commands) {
        return commands.stream().map(CommandMessage::messageId).toList();
    }

    @Test
    void aRejectedCommandGoesBackToItsSourceWhichFailsTheSenderOrDeliversItAgain() {
        CommandBus bus = bus();
        AtomicBoolean rejectedOnce = new AtomicBoolean();
        Received<CommandMessage> receiver = Received.settling(exchange -> !rejectedOnce.compareAndSet(false, true));
        bus.receive(ORDER).subscribe(receiver);
        open(bus);
        CommandMessage command = command("o-rejected", "Place");
        AtomicReference<@Nullable Throwable> senderSaw = new AtomicReference<>();

        CommandGateways.create(bus, EventStores.inMemory(), results)
                .send(command, WaitStage.PROCESSED, WAIT)
                .subscribe(result -> {}, senderSaw::set);

        await().atMost(WAIT)
                .until(() -> senderSaw.get() != null
                        || ids(receiver.messages()).stream()
                                        .filter(command.messageId()::equals)
                                        .count()
                                >= 2);
        Throwable failure = senderSaw.get();
        if (failure != null) {
            assertThat(failure).isSameAs(Received.REJECTED);
        }
    }

    @Test
    void whileTheIntakeGateIsClosedFollowUpsFlowAndNewCommandsWait() {
        CommandBus bus = bus();
        IntakeGate gate = new IntakeGate("contract");
        gate.hold();
        Received<CommandMessage> receiver = Received.acknowledging();
        bus.receive(ORDER, gate).subscribe(receiver);
        open(bus);
        CommandMessage followUp = command("o-follow", "Ship").withHeader(CommandMessage.CAUSE_HEADER, "cause-1");
        CommandMessage fresh = command("o-new", "Place");

        bus.send(followUp).block(WAIT);
        await().atMost(WAIT).until(() -> ids(receiver.messages()).contains(followUp.messageId()));
        bus.send(fresh).block(WAIT);

        await().during(Duration.ofMillis(500))
                .atMost(WAIT)
                .until(() -> !ids(receiver.messages()).contains(fresh.messageId()));
        gate.release();
        await().atMost(WAIT).until(() -> ids(receiver.messages()).contains(fresh.messageId()));
    }

    @Test
    void aBoundedBusRefusesWhatIsPastItsCapacityAndHalfSendsNothing() {
        OptionalInt capacity = capacityPerType();
        assumeTrue(capacity.isPresent(), "the bus bounds nothing in memory: a durable bus is never full");
        CommandBus bus = bus();
        Received<CommandMessage> receiver = Received.withoutDemand();
        bus.receive(ORDER).subscribe(receiver);
        open(bus);
        List<CommandMessage> accepted = new ArrayList<>();
        List<CommandMessage> refused = new ArrayList<>();
        for (int i = 0; i < capacity.getAsInt() + 2; i++) {
            CommandMessage command = command("o-" + i, "Place");
            try {
                bus.send(command).block(WAIT);
                accepted.add(command);
            } catch (CommandBusOverloadedException overloaded) {
                refused.add(command);
            }
        }

        assertThat(accepted)
                .as("the first commands up to the capacity")
                .hasSizeGreaterThanOrEqualTo(capacity.getAsInt());
        assertThat(refused)
                .as("past the capacity (one may be in hand-over to the receiver)")
                .isNotEmpty();
        receiver.requestAll();
        await().atMost(WAIT).until(() -> receiver.exchanges.size() == accepted.size());
        assertThat(ids(receiver.messages())).containsExactlyInAnyOrderElementsOf(ids(accepted));
    }
}
