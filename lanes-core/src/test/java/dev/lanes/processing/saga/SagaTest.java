package dev.lanes.processing.saga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.api.RecoverableException;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.event.DomainEventBus;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.flow.IntakeGate;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.messaging.EventContext;
import dev.lanes.processing.CompositeEventDispatcher;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.deadletter.ForwardingDeadLetterQueue;
import dev.lanes.processing.deadletter.RetryOutcome;
import dev.lanes.test.time.CountingScheduler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/** A saga records commands and lets go of its lane; outcomes come back as replies in the lane of the causing aggregate. */
class SagaTest {
    private static final NamedAggregate ORDER = NamedAggregate.of("shop", "order");
    private static final NamedAggregate STOCK = NamedAggregate.of("shop", "stock");
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private record Placed(String item) {}

    private record Reserve(String item) {}

    private record Release(String item) {}

    private final ScriptedGateway gateway = new ScriptedGateway();
    private final DomainEventBus bus = DomainEventBuses.inMemory(1024);
    private final List<String> log = new CopyOnWriteArrayList<>();
    private CompositeEventDispatcher events;

    @AfterEach
    void stop() {
        if (events != null) {
            events.forceStop();
        }
    }

    private EventProcessor.SagaBuilder reservations() {
        return EventProcessor.saga("Reservations", gateway)
                .on(ORDER, Placed.class, (placed, saga) -> {
                    log.add("placed " + saga.event().aggregateId().id() + " v"
                            + saga.event().version());
                    saga.send(AggregateId.of(STOCK, placed.item()), new Reserve(placed.item()));
                    return Mono.empty();
                })
                .onReply(Reserve.class, (reply, saga) -> {
                    log.add("reply " + saga.event().aggregateId().id() + " v"
                            + saga.event().version() + " " + (reply.succeeded() ? "ok" : "failed"));
                    if (!reply.succeeded()) {
                        saga.send(reply.target(), new Release(reply.command().item()));
                    }
                    return Mono.empty();
                });
    }

    /** A saga with an event function that sends nothing; replies are what these tests hand it. */
    private EventProcessor.SagaBuilder placingNothing() {
        return EventProcessor.saga("Reservations", gateway).on(ORDER, Placed.class, (placed, saga) -> Mono.empty());
    }

    private static SagaReply<Reserve> refused(String order, String item) {
        DomainEventStream placed = DomainEventStream.of(
                CommandMessage.of(AggregateId.of(ORDER, order), "Place"), 1, List.of(new Placed(item)));
        return new SagaReply<>(
                new Reserve(item),
                AggregateId.of(STOCK, item),
                "saga:Reservations:" + order + ":1:1:0",
                new EventContext(placed, placed.events().get(0)),
                null,
                new IllegalStateException("out of stock"));
    }

    @Test
    void aReplyRunsEveryReplyFunctionOfItsCommandsTypeWhenSubscribedAndNoOther() {
        EventProcessor saga = placingNothing()
                .onReply(Reserve.class, (reply, context) -> Mono.fromRunnable(() -> log.add("reserve")))
                .onReply(Object.class, (reply, context) -> {
                    log.add("any");
                    return Mono.empty();
                })
                .onReply(Release.class, (reply, context) -> Mono.fromRunnable(() -> log.add("release")))
                .build();

        Mono<Void> handling = saga.handle(refused("o-1", "apple"));

        assertThat(log).as("nothing runs before the subscription").isEmpty();
        StepVerifier.create(handling).expectComplete().verify(TIMEOUT);
        assertThat(log).containsExactlyInAnyOrder("reserve", "any");
    }

    @Test
    void aReplyFunctionThatThrowsFailsTheReplyAndWhatItRecordedIsNeverSent() {
        IllegalStateException broken = new IllegalStateException("reply function broke");
        EventProcessor saga = placingNothing()
                .onReply(Reserve.class, (reply, context) -> {
                    context.send(reply.target(), new Release(reply.command().item()));
                    throw broken;
                })
                .build();

        StepVerifier.create(saga.handle(refused("o-1", "apple")))
                .expectErrorSatisfies(error -> assertThat(error).isSameAs(broken))
                .verify(TIMEOUT);
        assertThat(gateway.sent).isEmpty();
    }

    @Test
    void aReplyFunctionThatAnswersLaterFailsTheReplyWithItsErrorAndWhatItRecordedIsNeverSent() {
        IllegalStateException broken = new IllegalStateException("reply function failed later");
        EventProcessor saga = placingNothing()
                .onReply(Reserve.class, (reply, context) -> {
                    context.send(reply.target(), new Release(reply.command().item()));
                    return Mono.delay(Duration.ofMillis(5)).then(Mono.error(broken));
                })
                .build();

        StepVerifier.create(saga.handle(refused("o-1", "apple")))
                .expectErrorSatisfies(error -> assertThat(error).isSameAs(broken))
                .verify(TIMEOUT);
        assertThat(gateway.sent).isEmpty();
    }

    /**
     * A reply whose handling fails for good heads the saga's sequence of the causing aggregate, in the dead-letter
     * queue instead of the lane's parking lot; a later reply and a later stream of that aggregate park behind it; a
     * retry sends each command again with its request id and delivers the replies, then the stream, in order.
     */
    @Test
    void aReplyThatFailsForGoodHeadsTheSagasSequenceAndARetryDeliversItAndWhatParkedBehindItInOrder() {
        DeadLetterQueue queue = DeadLetterQueues.inMemory();
        AtomicBoolean compensationFails = new AtomicBoolean(true);
        events = CompositeEventDispatcher.builder("Events", bus)
                .schedulerParallelism(2)
                .settings(LaneSettings.DEFAULT.withRetryPolicy(
                        RetryPolicy.DEFAULT.withMaxRetries(1).withBackoff(Duration.ZERO, Duration.ZERO)))
                .deadLetterQueue(queue)
                .processor(EventProcessor.saga("Reservations", gateway)
                        .on(ORDER, Placed.class, (placed, saga) -> {
                            log.add("placed v" + saga.event().version());
                            saga.send(AggregateId.of(STOCK, placed.item()), new Reserve(placed.item()));
                            return Mono.empty();
                        })
                        .onReply(Reserve.class, (reply, saga) -> {
                            if (compensationFails.get()) {
                                throw new IllegalStateException("compensation failed");
                            }
                            log.add("reply v" + saga.event().version() + " " + (reply.succeeded() ? "ok" : "failed"));
                            return Mono.empty();
                        })
                        .build())
                .build();
        events.prepare(RuntimeContext.standalone()).block(TIMEOUT);
        events.start();
        AggregateId order = AggregateId.of(ORDER, "o-1");
        publish("o-1", 1, "apple");
        publish("o-1", 2, "pear");
        await().atMost(TIMEOUT).until(() -> gateway.sent.size() == 2);
        CommandMessage apple = gateway.sent.get(0);
        CommandMessage pear = gateway.sent.get(1);

        gateway.fail(apple, new IllegalStateException("out of stock"));
        await().atMost(TIMEOUT)
                .until(() -> queue.list("Reservations", order).block(TIMEOUT).size() == 1);
        gateway.fail(pear, new IllegalStateException("out of stock"));
        await().atMost(TIMEOUT)
                .until(() -> queue.list("Reservations", order).block(TIMEOUT).size() == 2);
        publish("o-1", 3, "plum");
        await().atMost(TIMEOUT)
                .until(() -> queue.list("Reservations", order).block(TIMEOUT).size() == 3);

        List<DeadLetter> letters = queue.list("Reservations", order).block(TIMEOUT);
        assertThat(letters)
                .extracting(
                        letter -> letter.reply() == null ? null : letter.reply().requestId())
                .containsExactly(apple.requestId(), pear.requestId(), null);
        assertThat(letters).extracting(DeadLetter::attempts).containsExactly(2, 0, 0);
        assertThat(letters).extracting(letter -> letter.stream().version()).containsExactly(1, 2, 3);
        assertThat(letters.get(0).reason()).isEqualTo("java.lang.IllegalStateException: compensation failed");
        assertThat(log).containsExactly("placed v1", "placed v2");
        assertThat(events.parked()).as("nothing in the lane's parking lot").isEmpty();

        compensationFails.set(false);
        gateway.answer = message -> Mono.just(new CommandResult(
                message.messageId(), message.requestId(), message.aggregateId(), WaitStage.PROCESSED, 1, List.of()));
        RetryOutcome outcome = events.deadLetters().retry("Reservations", order).block(TIMEOUT);

        assertThat(outcome).isEqualTo(new RetryOutcome("Reservations", order, 3, 0, 0, null));
        assertThat(log).startsWith("placed v1", "placed v2", "reply v1 ok", "reply v2 ok", "placed v3");
        assertThat(gateway.sent.subList(2, 4))
                .extracting(CommandMessage::requestId)
                .containsExactly(apple.requestId(), pear.requestId());
        await().atMost(TIMEOUT).until(() -> log.contains("reply v3 ok"));
        assertThat(queue.isParked("Reservations", order)).isFalse();
    }

    /**
     * A dead-letter queue that cannot park replies (one that leaves {@link DeadLetterQueue#enqueueReply} to its
     * default) leaves a reply that fails for good to the lane's parking lot, as before replies were sequenced, and runs
     * a reply behind a parked sequence instead of refusing it.
     */
    @Test
    void aQueueThatCannotParkRepliesLeavesAFailedReplyToTheParkingLot() {
        DeadLetterQueue inMemory = DeadLetterQueues.inMemory();
        // forwards the stream operations only: enqueueReply keeps its default
        DeadLetterQueue streamsOnly = new ForwardingDeadLetterQueue(inMemory) {};
        events = CompositeEventDispatcher.builder("Events", bus)
                .schedulerParallelism(2)
                .settings(LaneSettings.DEFAULT.withRetryPolicy(RetryPolicy.NONE))
                .deadLetterQueue(streamsOnly)
                .processor(EventProcessor.saga("Reservations", gateway)
                        .on(ORDER, Placed.class, (placed, saga) -> {
                            saga.send(AggregateId.of(STOCK, placed.item()), new Reserve(placed.item()));
                            return Mono.empty();
                        })
                        .onReply(Reserve.class, (reply, saga) -> {
                            throw new IllegalStateException("compensation failed");
                        })
                        .build())
                .build();
        events.prepare(RuntimeContext.standalone()).block(TIMEOUT);
        events.start();
        publish("o-1", 1, "apple");
        await().atMost(TIMEOUT).until(() -> gateway.sent.size() == 1);

        gateway.fail(gateway.sent.get(0), new IllegalStateException("out of stock"));

        await().atMost(TIMEOUT).until(() -> events.parked().size() == 1);
        assertThat(events.parked().get(0).message()).isInstanceOf(SagaReply.class);
        assertThat(events.parked().get(0).error()).hasMessage("compensation failed");
        assertThat(inMemory.sequences().block(TIMEOUT)).isEmpty();
    }

    private void start(EventProcessor saga) {
        events = CompositeEventDispatcher.builder("Events", bus)
                .schedulerParallelism(2)
                .processor(saga)
                .build();
        events.prepare(RuntimeContext.standalone()).block(TIMEOUT);
        events.start();
    }

    private void publish(String order, int version, String item) {
        bus.publish(DomainEventStream.of(
                        CommandMessage.of(AggregateId.of(ORDER, order), "Place"), version, List.of(new Placed(item))))
                .block(TIMEOUT);
    }

    @Test
    void theSagasLaneMovesOnWhileItsCommandIsPending() {
        start(reservations().build());

        publish("o-1", 1, "apple");
        publish("o-1", 2, "pear");

        await().atMost(TIMEOUT).until(() -> gateway.sent.size() == 2);
        assertThat(log).containsExactly("placed o-1 v1", "placed o-1 v2");
        assertThat(gateway.sent)
                .extracting(CommandMessage::requestId)
                .allMatch(id -> id.startsWith("saga:Reservations:"))
                .doesNotHaveDuplicates();
        assertThat(gateway.sent).allMatch(CommandMessage::isFollowUp);
    }

    @Test
    void anOutcomeComesBackInTheSagasLaneAndItsReplyMaySendMoreWithDerivedRequestIds() {
        start(reservations().build());
        publish("o-1", 1, "apple");
        await().atMost(TIMEOUT).until(() -> gateway.sent.size() == 1);
        CommandMessage reserve = gateway.sent.get(0);

        gateway.fail(reserve, new IllegalStateException("out of stock"));

        await().atMost(TIMEOUT).until(() -> gateway.sent.size() == 2);
        assertThat(log).containsExactly("placed o-1 v1", "reply o-1 v1 failed");
        CommandMessage release = gateway.sent.get(1);
        assertThat(release.command()).isEqualTo(new Release("apple"));
        assertThat(release.requestId()).isEqualTo(reserve.requestId() + ":1");
        assertThat(release.headers())
                .containsEntry(CommandMessage.CAUSE_HEADER, reserve.headers().get(CommandMessage.CAUSE_HEADER));
    }

    @Test
    void aTransientFailureIsSentAgainWithTheSameRequestIdAfterItsBackoffAndOnlyTheFinalOutcomeIsReplied() {
        VirtualTimeScheduler time = VirtualTimeScheduler.create();
        CountingScheduler timer = new CountingScheduler(time);
        start(reservations()
                .commandRetries(
                        EventProcessor.SagaBuilder.DEFAULT_COMMAND_RETRIES
                                .withBackoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
                                .withJitter(0),
                        timer)
                .build());
        gateway.answer = message -> gateway.sent.size() == 1
                ? Mono.error(new Busy())
                : Mono.just(new CommandResult(
                        message.messageId(),
                        message.requestId(),
                        message.aggregateId(),
                        WaitStage.PROCESSED,
                        1,
                        List.of()));

        publish("o-1", 1, "apple");
        // the failed send's retry is timed from now
        await().atMost(TIMEOUT).until(() -> gateway.sent.size() == 1 && timer.scheduled() == 1);
        time.advanceTimeBy(Duration.ofMillis(999));
        assertThat(gateway.sent).hasSize(1);
        time.advanceTimeBy(Duration.ofMillis(1));

        await().atMost(TIMEOUT).until(() -> log.contains("reply o-1 v1 ok"));
        assertThat(gateway.sent).hasSize(2);
        assertThat(gateway.sent.get(1).requestId())
                .isEqualTo(gateway.sent.get(0).requestId());
        assertThat(gateway.sent.get(1).messageId())
                .isNotEqualTo(gateway.sent.get(0).messageId());
        assertThat(log).doesNotContain("reply o-1 v1 failed");
    }

    @Test
    void aSagaAtItsBudgetOfPendingCommandsTakesNoMoreStreamsUntilRepliesBringItDown() {
        events = CompositeEventDispatcher.builder("Events", bus)
                .schedulerParallelism(2)
                .settings(LaneSettings.DEFAULT.withBounds(4, 8)) // the saga holds at most 8 streams it took
                .processor(reservations().maxPendingCommands(4).build())
                .build();
        events.prepare(RuntimeContext.standalone()).block(TIMEOUT);
        events.start();
        int orders = 200;
        for (int i = 0; i < orders; i++) {
            publish("o-" + i, 1, "item-" + i);
        }

        await().atMost(TIMEOUT).until(() -> gateway.sent.size() >= 4);
        await().during(Duration.ofMillis(200)).atMost(TIMEOUT).until(() -> gateway.sent.size() < orders);
        assertThat(gateway.sent.size())
                .as("paused past the budget by at most the streams it had taken and those in hand-over")
                .isLessThanOrEqualTo(4 + 8 + IntakeGate.WINDOW + 1);

        gateway.answer = message -> Mono.just(new CommandResult(
                message.messageId(), message.requestId(), message.aggregateId(), WaitStage.PROCESSED, 1, List.of()));
        gateway.succeedAll();

        await().atMost(TIMEOUT)
                .until(() -> log.stream().filter(line -> line.endsWith("ok")).count() == orders);
        assertThat(gateway.sent).hasSize(orders);
    }

    /** A recoverable failure, as a full lane or a timed-out wait would be. */
    private static final class Busy extends RecoverableException {
        private static final long serialVersionUID = 1L;

        Busy() {
            super("busy");
        }
    }

    /** Records what it is asked to send; answers as scripted, by default never (until told). */
    private static final class ScriptedGateway implements CommandGateway {
        final List<CommandMessage> sent = new CopyOnWriteArrayList<>();
        final Map<String, Sinks.One<CommandResult>> pending = new ConcurrentHashMap<>();
        volatile Function<CommandMessage, Mono<CommandResult>> answer = message -> {
            Sinks.One<CommandResult> outcome = Sinks.one();
            pending.put(message.messageId(), outcome);
            return outcome.asMono();
        };

        /**
         * Records and answers under the gateway's lock, so {@link #succeedAll()} sees every send either pending or yet
         * to come (and then answered by whatever {@link #answer} was set before it).
         */
        @Override
        public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage) {
            return Mono.defer(() -> {
                synchronized (this) {
                    sent.add(command);
                    return answer.apply(command);
                }
            });
        }

        @Override
        public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage, Duration timeout) {
            return send(command, waitStage);
        }

        void fail(CommandMessage command, Throwable error) {
            pending.remove(command.messageId()).tryEmitError(error);
        }

        synchronized void succeedAll() {
            for (CommandMessage command : sent) {
                Sinks.One<CommandResult> outcome = pending.remove(command.messageId());
                if (outcome != null) {
                    outcome.tryEmitValue(new CommandResult(
                            command.messageId(),
                            command.requestId(),
                            command.aggregateId(),
                            WaitStage.PROCESSED,
                            1,
                            List.of()));
                }
            }
        }
    }
}
