package dev.lanes.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.HandlerTimeout;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.event.DomainEventBus;
import dev.lanes.event.DomainEventBuses;
import dev.lanes.eventsourcing.EncodedPayload;
import dev.lanes.eventsourcing.PayloadCodecException;
import dev.lanes.eventsourcing.UndecodedPayload;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.CompositeEventDispatcher;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterSequence;
import dev.lanes.processing.deadletter.DeadLetters;
import dev.lanes.processing.deadletter.ForwardingDeadLetterQueue;
import dev.lanes.processing.deadletter.RetryOutcome;
import dev.lanes.processing.saga.ParkedReply;
import dev.lanes.test.logging.LogCapture;
import dev.lanes.test.logging.LogLine;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.event.Level;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * The behaviour of sequenced dead letters on the event side, for any {@link DeadLetterQueue}. Extend it and implement
 * {@link #createQueue()}; every test uses fresh aggregate ids, so the queue's storage may be shared between tests.
 *
 * <p>Two processors receive {@code sales.order} streams: {@code Poisoned} fails on the streams a test poisons (one
 * retry, no backoff), {@code Healthy} never fails. A test publishes to an in-memory bus and reads what each processor
 * handled, in order, per aggregate.
 */
public abstract class SequencedDeadLettersContract {

    /** What the queue's users log while these tests park streams on purpose: read and checked after each test. */
    @RegisterExtension
    protected final LogCapture logs = LogCapture.standardError();

    /**
     * Stops each test's event sides, then lets the subclass close its queues ({@link #afterStopped}), then checks the
     * log: parking, retrying and skipping are logged as warnings by the sequencer, never as errors. One method, so the
     * order holds (JUnit runs a subclass's {@code @AfterEach} before these, and these in no promised order).
     */
    @AfterEach
    void stopThenOnlyTheSequencersWarningsAreLogged() {
        started.forEach(side -> side.stopGracefully().block(TIMEOUT));
        afterStopped();
        assertThat(logs.lines())
                .filteredOn(line -> !isHandlerTimeoutWarning(line))
                .allSatisfy(line -> assertThat(line.level() + " " + line.logger())
                        .as(line.message())
                        .isEqualTo("WARN dev.lanes.processing.deadletter.DeadLetterSequencer"));
    }
    /** The lane engine's warnings about a hung handler, which a timeout test provokes on purpose. */
    private static boolean isHandlerTimeoutWarning(LogLine line) {
        return line.level() == Level.WARN
                && line.logger().equals("dev.lanes.dispatch.AggregateDispatcher")
                && (line.message().contains("did not end within its timeout")
                        || line.message().contains("has run for more than"));
    }

    /** How long any wait of these tests may take. */
    protected static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");
    private static final String POISONED = "Poisoned";
    private static final String HEALTHY = "Healthy";

    /** The payload of the test streams. */
    public record Touched(String label) {}

    /** The command the saga {@link #SAGA} sends for each {@link Touched}; the account refuses it. */
    public record Credit(String label) {}

    /** The saga of the reply tests. */
    protected static final String SAGA = "Crediting";

    private static final NamedAggregate ACCOUNT = NamedAggregate.of("sales", "account");

    /** The account the saga credits for an order. */
    protected static final Function<AggregateId, AggregateId> ACCOUNT_OF = order -> AggregateId.of(ACCOUNT, order.id());

    /** Refuses every credit (not a transient failure: the saga replies it at once); records the request ids. */
    private final RefusingGateway credits = new RefusingGateway();

    private final Map<AggregateId, List<String>> sagaLog = new ConcurrentHashMap<>();
    private volatile boolean compensationFails;

    private final Journal journal = new Journal();
    private final List<CompositeEventDispatcher> started = new ArrayList<>();
    /** The bus of the event side started last, which {@link #publish} publishes to. */
    private volatile DomainEventBus bus = DomainEventBuses.inMemory();

    private volatile Predicate<DomainEventStream> poisoned = stream -> false;
    private volatile Map<String, Mono<Void>> held = Map.of();

    /** The queue under test; called once per event side (twice in a restart test, which must see the same letters). */
    protected abstract DeadLetterQueue createQueue();

    /**
     * After each test, once its event sides stopped (nothing polls the queue any more) and before the log is checked:
     * close what {@link #createQueue} opened. Nothing by default.
     */
    protected void afterStopped() {}

    @Test
    void aPoisonEventParksItsAggregatesLaterEventsForThatProcessorOnlyAndARetryDeliversThemInOrder() {
        AggregateId bad = fresh("bad");
        AggregateId good = fresh("good");
        poison(bad, 2);
        CompositeEventDispatcher side = start(createQueue());

        publish(bad, 1, 2, 3, 4);
        publish(good, 1, 2, 3);

        journal.awaitHandled(HEALTHY, bad, 4);
        journal.awaitHandled(POISONED, good, 3);
        List<DeadLetter> letters = awaitParked(side.deadLetters(), bad, 3);
        assertThat(journal.handled(POISONED, bad)).containsExactly(1);
        assertThat(journal.handled(HEALTHY, bad)).containsExactly(1, 2, 3, 4);
        assertThat(journal.handled(POISONED, good)).containsExactly(1, 2, 3);
        assertThat(letters)
                .extracting(letter -> letter.requireStream().version())
                .containsExactly(2, 3, 4);
        assertThat(letters.get(0).attempts()).isEqualTo(2);
        assertThat(letters.get(0).reason()).isEqualTo("java.lang.IllegalStateException: poisoned " + bad + " v2");
        assertThat(letters.subList(1, 3))
                .allSatisfy(letter -> assertThat(letter.attempts()).isZero());
        // the dispatchers count what went to the queue as parked: 7 streams handled by the healthy processor, 4 by the
        // poisoned one, its 3 for the bad aggregate parked (the head after its retry, and the two behind it)
        Awaitility.await().atMost(TIMEOUT).untilAsserted(() -> {
            assertThat(side.dispatchers().stream()
                            .mapToLong(dispatcher -> dispatcher.stats().parked())
                            .sum())
                    .isEqualTo(3);
            assertThat(side.dispatchers().stream()
                            .mapToLong(dispatcher -> dispatcher.stats().handled())
                            .sum())
                    .isEqualTo(11);
        });
        assertThat(side.deadLetters().list(HEALTHY, bad).block(TIMEOUT)).isEmpty();
        assertThat(side.deadLetters().list(POISONED, good).block(TIMEOUT)).isEmpty();
        assertThat(side.deadLetters().sequences().block(TIMEOUT))
                .filteredOn(sequence -> sequence.aggregateId().equals(bad))
                .containsExactly(new DeadLetterSequence(POISONED, bad, 3));

        cure();
        RetryOutcome outcome = side.deadLetters().retry(POISONED, bad).block(TIMEOUT);

        assertThat(outcome).isEqualTo(new RetryOutcome(POISONED, bad, 3, 0, 0, null));
        assertThat(journal.handled(POISONED, bad)).containsExactly(1, 2, 3, 4);
        assertThat(side.deadLetters().list(POISONED, bad).block(TIMEOUT)).isEmpty();
        publish(bad, 5);
        journal.awaitHandled(POISONED, bad, 5);
        assertThat(journal.handled(POISONED, bad)).containsExactly(1, 2, 3, 4, 5);
    }

    /** A bus reloads the queue as it moves work to this instance: what is parked here stays parked. */
    @Test
    void aReloadKeepsTheSequencesParkedAndLaterStreamsStayBehindThem() {
        AggregateId id = fresh("reloaded");
        poison(id, 2);
        DeadLetterQueue queue = createQueue();
        CompositeEventDispatcher side = start(queue);
        publish(id, 1, 2);
        awaitParked(side.deadLetters(), id, 1);

        queue.reload();
        publish(id, 3);

        assertThat(awaitParked(side.deadLetters(), id, 2))
                .extracting(letter -> letter.requireStream().version())
                .containsExactly(2, 3);
        assertThat(queue.isParked(POISONED, id)).isTrue();
        assertThat(journal.handled(POISONED, id)).containsExactly(1);
    }

    /** The defect this replaces: one processor saw versions [1, 3], then [1, 3, 2] after the replay. */
    @Test
    void replayingParkedStreamsKeepsVersionOrder() {
        AggregateId id = fresh("replayed");
        poison(id, 2);
        CompositeEventDispatcher side = start(createQueue());

        publish(id, 1, 2, 3);
        awaitParked(side.deadLetters(), id, 2);
        assertThat(journal.handled(POISONED, id)).containsExactly(1);

        cure();
        assertThat(side.replayParked().block(TIMEOUT)).isGreaterThanOrEqualTo(2);

        assertThat(journal.handled(POISONED, id)).containsExactly(1, 2, 3);
    }

    /**
     * A queue shared with other processors (a tracking processor, another service) holds sequences this side does not
     * run: replaying its parked streams retries its own and leaves those alone, instead of failing on them.
     */
    @Test
    void replayingParkedStreamsLeavesTheSequencesOfProcessorsThisSideDoesNotRun() {
        AggregateId elsewhere = fresh("elsewhere");
        AggregateId id = fresh("replayed-own");
        DeadLetterQueue queue = createQueue();
        DeadLetter foreign = queue.enqueue("Elsewhere", stream(elsewhere, 1), "java.lang.IllegalStateException: x", 1)
                .block(TIMEOUT);
        poison(id, 2);
        CompositeEventDispatcher side = start(queue);
        publish(id, 1, 2, 3);
        awaitParked(side.deadLetters(), id, 2);

        cure();
        Integer replayed = side.replayParked().block(TIMEOUT);

        assertThat(replayed).isGreaterThanOrEqualTo(2);
        assertThat(journal.handled(POISONED, id)).containsExactly(1, 2, 3);
        assertThat(queue.list("Elsewhere", elsewhere).block(TIMEOUT)).containsExactly(foreign);
        queue.evict(Objects.requireNonNull(foreign)).block(TIMEOUT);
    }

    @Test
    void streamsArrivingWhileARetryRunsWaitForItAndFollowInOrder() {
        AggregateId id = fresh("raced");
        poison(id, 2);
        CompositeEventDispatcher side = start(createQueue());
        HeldRetry retry = retryHeldAtTheHead(side, id);
        publish(id, 4, 5); // while the retry's delivery of v2 is still running, in the same lane
        retry.release().tryEmitEmpty();

        assertThat(retry.outcome().block(TIMEOUT)).isEqualTo(new RetryOutcome(POISONED, id, 2, 0, 0, null));
        journal.awaitHandled(POISONED, id, 5);
        assertThat(journal.handled(POISONED, id)).containsExactly(1, 2, 3, 4, 5);
        assertThat(side.deadLetters().list(POISONED, id).block(TIMEOUT)).isEmpty();
    }

    /**
     * Two instances share the queue: one runs the retry (it took the request), the other owns the aggregate's
     * partition and parks a new stream behind the head while that retry delivers it. The retry looks again once its
     * letters are delivered, so the new one does not wait for another retry.
     */
    @Test
    void aStreamParkedBehindTheHeadByAnotherInstanceWhileARetryRunsIsDeliveredByThatRetry() {
        AggregateId id = fresh("shared");
        poison(id, 2);
        DeadLetterQueue queue = createQueue();
        CompositeEventDispatcher side = start(queue);
        HeldRetry retry = retryHeldAtTheHead(side, id);
        // the owner of the partition, on the other instance, parks v4 behind the head it sees in the queue
        assertThat(queue.enqueueIfPresent(POISONED, stream(id, 4), "parked behind the head by the partition's owner")
                        .map(DeadLetter::index)
                        .block(TIMEOUT))
                .as("the head is still parked, so v4 goes behind it")
                .isNotNull();
        retry.release().tryEmitEmpty();

        assertThat(retry.outcome().block(TIMEOUT)).isEqualTo(new RetryOutcome(POISONED, id, 3, 0, 0, null));
        assertThat(journal.handled(POISONED, id)).containsExactly(1, 2, 3, 4);
        assertThat(side.deadLetters().list(POISONED, id).block(TIMEOUT)).isEmpty();
    }

    /**
     * A retry looks at the sequence again once it delivered every letter (another instance may have parked more); a
     * queue whose evictions do not happen must not make it deliver the same letters again, round after round.
     */
    @Test
    void aRetryDeliversEachLetterOnceEvenWhenTheQueueKeepsTheLettersItWasToldToEvict() {
        AggregateId id = fresh("unevicted");
        poison(id, 2);
        CompositeEventDispatcher side = start(new EvictingNothing(createQueue()));
        publish(id, 1, 2, 3);
        awaitParked(side.deadLetters(), id, 2);
        cure();

        RetryOutcome outcome = side.deadLetters().retry(POISONED, id).block(TIMEOUT);

        assertThat(outcome).isEqualTo(new RetryOutcome(POISONED, id, 2, 0, 0, null));
        assertThat(journal.handled(POISONED, id)).containsExactly(1, 2, 3);
    }

    @Test
    void aRetryThatFailsAgainStopsThereTheHeadKeepsItsPlaceWithItsNewReasonAndLaterStreamsStayBehindIt() {
        AggregateId id = fresh("again");
        poison(id, 2);
        CompositeEventDispatcher side = start(createQueue());
        publish(id, 1, 2, 3);
        awaitParked(side.deadLetters(), id, 2);

        RetryOutcome outcome = side.deadLetters().retry(POISONED, id).block(TIMEOUT);
        publish(id, 4);
        List<DeadLetter> letters = awaitParked(side.deadLetters(), id, 3);

        assertThat(outcome)
                .isEqualTo(new RetryOutcome(
                        POISONED, id, 0, 0, 2, "java.lang.IllegalStateException: poisoned " + id + " v2"));
        assertThat(letters)
                .extracting(letter -> letter.requireStream().version())
                .containsExactly(2, 3, 4);
        assertThat(letters.get(0).attempts()).isEqualTo(3);
        assertThat(journal.handled(POISONED, id)).containsExactly(1);
    }

    @Test
    void aSkipDropsTheHeadAndDeliversTheRestInOrder() {
        AggregateId id = fresh("skipped");
        poison(id, 2);
        CompositeEventDispatcher side = start(createQueue());
        publish(id, 1, 2, 3, 4);
        awaitParked(side.deadLetters(), id, 3);

        RetryOutcome outcome = side.deadLetters().skip(POISONED, id).block(TIMEOUT);

        assertThat(outcome).isEqualTo(new RetryOutcome(POISONED, id, 2, 1, 0, null));
        assertThat(journal.handled(POISONED, id)).containsExactly(1, 3, 4);
        assertThat(side.deadLetters().list(POISONED, id).block(TIMEOUT)).isEmpty();
    }

    @Test
    void badInputIsParkedWithItsReasonNeverDropped() {
        AggregateId id = fresh("refused");
        poisoned = stream -> stream.aggregateId().equals(id);
        CompositeEventDispatcher side = start(createQueue());
        publish(id, 1);

        DeadLetter letter = awaitParked(side.deadLetters(), id, 1).get(0);

        assertThat(letter.processor()).isEqualTo(POISONED);
        assertThat(letter.index()).isPositive();
        assertThat(letter.reason()).isEqualTo("java.lang.IllegalStateException: poisoned " + id + " v1");
        assertThat(letter.requireStream().payloads()).containsExactly(new Touched(id.id() + " v1"));
        assertThat(letter.attempts()).isEqualTo(2);
    }

    /**
     * A bus that cannot decode an event hands it over encoded ({@link UndecodedPayload}) rather than skip it: no
     * handler runs, the stream is parked at once (its one attempt: the same codec cannot read it on a retry) with the
     * payload as it was encoded, and the aggregate's later streams wait behind it, while other aggregates flow.
     */
    @Test
    void aStreamWithAnEventItsBusCouldNotDecodeIsParkedAtOnceUnhandledAndHoldsItsAggregate() {
        AggregateId id = fresh("undecoded");
        AggregateId other = fresh("decoded");
        CompositeEventDispatcher side = start(createQueue());

        publish(id, 1);
        publishUndecoded(id, 2);
        publish(id, 3);
        publish(other, 1, 2);

        journal.awaitHandled(POISONED, other, 2);
        journal.awaitHandled(HEALTHY, other, 2);
        List<DeadLetter> letters = awaitParked(side.deadLetters(), id, 2);
        assertThat(letters)
                .extracting(letter -> letter.requireStream().version())
                .containsExactly(2, 3);
        assertThat(letters.get(0).attempts()).as("parked without a retry").isEqualTo(1);
        assertThat(letters.get(0).reason())
                .startsWith(PayloadCodecException.class.getName() + ": Cannot decode event 1 of " + id + " v2")
                .contains("encoded as " + UNDECODED_TYPE + "@2");
        assertThat(letters.get(0).requireStream().payloads())
                .singleElement()
                .isInstanceOfSatisfying(
                        UndecodedPayload.class,
                        payload -> assertThat(payload.encoded())
                                .as("kept as it was encoded")
                                .isEqualTo(encoded(id, 2)));
        assertThat(journal.handled(POISONED, id)).containsExactly(1);
        assertThat(journal.handled(HEALTHY, id)).as("no processor handles it").containsExactly(1);

        RetryOutcome outcome = side.deadLetters().retry(POISONED, id).block(TIMEOUT);

        assertThat(outcome)
                .as("the codec still cannot read it")
                .extracting(RetryOutcome::delivered, RetryOutcome::remaining)
                .containsExactly(0, 2);
        assertThat(journal.handled(POISONED, id)).containsExactly(1);
    }

    @Test
    void aStreamWhoseHandlerHangsPastItsTimeoutOnEveryAttemptBecomesTheHeadOfASequence() {
        AggregateId id = fresh("hung");
        hold(id, 2, Mono.never());
        CompositeEventDispatcher side =
                start(createQueue(), new HandlerTimeout(Duration.ofMillis(100), Duration.ofMillis(200)));

        publish(id, 1, 2, 3);

        List<DeadLetter> letters = awaitParked(side.deadLetters(), id, 2);
        assertThat(letters)
                .extracting(letter -> letter.requireStream().version())
                .containsExactly(2, 3);
        assertThat(letters.get(0).attempts()).isEqualTo(2);
        assertThat(letters.get(0).reason())
                .isEqualTo("dev.lanes.dispatch.HandlerTimeoutException: " + POISONED + " handler for " + id
                        + " did not end within its timeout of PT0.2S (attempt 2); it was cancelled");
        journal.awaitHandled(HEALTHY, id, 3);
        assertThat(journal.handled(POISONED, id)).containsExactly(1);
    }

    @Test
    void retryAndSkipNameWhatTheyCannotFind() {
        CompositeEventDispatcher side = start(createQueue());
        AggregateId id = fresh("unknown");

        assertThatThrownBy(() -> side.deadLetters().retry("Missing", id).block(TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no processor 'Missing'")
                .hasMessageContaining(POISONED);
        assertThatThrownBy(() -> side.deadLetters()
                        .skip(POISONED, AggregateId.of(NamedAggregate.of("sales", "invoice"), "i-1"))
                        .block(TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("receives no streams of sales.invoice");
        assertThat(side.deadLetters().retry(POISONED, id).block(TIMEOUT))
                .isEqualTo(new RetryOutcome(POISONED, id, 0, 0, 0, null));
    }

    /**
     * A saga's reply whose handling fails for good (its compensation throws) is a letter at the head of the saga's
     * sequence for the aggregate whose event caused the command: that aggregate's later streams for the saga park behind
     * it, and a retry sends the command again with its request id, delivers the reply, then the later stream, in order.
     */
    @Test
    void aSagaReplyThatFailsForGoodHeadsTheSagasSequenceAndARetryDeliversItThenTheLaterStreamsInOrder() {
        AggregateId id = fresh("compensated");
        CompositeEventDispatcher side = startSaga(createQueue());

        List<DeadLetter> letters = parkSagaReply(side, id);

        DeadLetter head = letters.get(0);
        ParkedReply reply = Objects.requireNonNull(head.reply());
        assertThat(head.requireStream().version()).isEqualTo(1);
        assertThat(head.attempts()).isEqualTo(2);
        assertThat(head.reason()).isEqualTo("java.lang.IllegalStateException: compensation failed for " + id + " v1");
        assertThat(reply.command()).isEqualTo(new Credit(id.id() + " v1"));
        assertThat(reply.target()).isEqualTo(ACCOUNT_OF.apply(id));
        assertThat(reply.requestId()).isEqualTo(credits.requestIds().get(0));
        assertThat(reply.causeSequence()).isEqualTo(1);
        assertThat(letters.get(1).isReply()).isFalse();
        assertThat(letters.get(1).requireStream().version()).isEqualTo(2);

        RetryOutcome outcome = retryCuredSaga(side, id);

        assertThat(outcome).isEqualTo(new RetryOutcome(SAGA, id, 2, 0, 0, null));
        assertThat(sagaLog(id)).containsExactly("event v1", "reply v1 failed", "event v2", "reply v2 failed");
    }

    /**
     * Parks a saga reply for {@code id}'s v1 with v2 behind it: every command the saga sends is refused, and its reply
     * function fails until {@link #retryCuredSaga}. Returns the letters, head first.
     */
    protected final List<DeadLetter> parkSagaReply(CompositeEventDispatcher side, AggregateId id) {
        compensationFails = true;
        publish(id, 1);
        List<DeadLetter> head = awaitParked(SAGA, side.deadLetters(), id, 1);
        publish(id, 2);
        List<DeadLetter> letters = awaitParked(SAGA, side.deadLetters(), id, 2);
        assertThat(head.get(0).isReply()).isTrue();
        assertThat(sagaLog(id)).containsExactly("event v1");
        assertThat(credits.requestIds()).hasSize(1);
        return letters;
    }

    /**
     * Lets the saga's reply function succeed, retries {@code id}'s sequence, and checks that the command was sent again
     * with the same request id; v2's reply (the command of its event) follows outside the retry.
     */
    protected final RetryOutcome retryCuredSaga(CompositeEventDispatcher side, AggregateId id) {
        compensationFails = false;
        RetryOutcome outcome = side.deadLetters().retry(SAGA, id).block(TIMEOUT);
        assertThat(side.deadLetters().list(SAGA, id).block(TIMEOUT)).isEmpty();
        Awaitility.await().atMost(TIMEOUT).until(() -> sagaLog(id).size() == 4);
        List<String> requestIds = credits.requestIds();
        assertThat(requestIds).hasSize(3);
        assertThat(requestIds.get(1)).as("sent again with its request id").isEqualTo(requestIds.get(0));
        return Objects.requireNonNull(outcome);
    }

    /** What the saga did for {@code id}, in order. */
    protected final List<String> sagaLog(AggregateId id) {
        return List.copyOf(sagaLog.getOrDefault(id, List.of()));
    }

    /** An event side running only the saga {@link #SAGA} over {@code queue}. */
    protected final CompositeEventDispatcher startSaga(DeadLetterQueue queue) {
        bus = DomainEventBuses.inMemory();
        CompositeEventDispatcher side = CompositeEventDispatcher.builder("SagaSide", bus)
                .processor(EventProcessor.saga(SAGA, credits)
                        .on(ORDER, Touched.class, (event, saga) -> {
                            AggregateId id = saga.event().aggregateId();
                            logSaga(id, "event v" + saga.event().version());
                            saga.send(ACCOUNT_OF.apply(id), new Credit(event.label()));
                            return Mono.empty();
                        })
                        .onReply(
                                Credit.class,
                                (reply, saga) -> Mono.fromRunnable(() -> {
                                    AggregateId id = saga.event().aggregateId();
                                    if (compensationFails) {
                                        throw new IllegalStateException("compensation failed for " + id + " v"
                                                + saga.event().version());
                                    }
                                    logSaga(
                                            id,
                                            "reply v" + saga.event().version()
                                                    + (reply.succeeded() ? " ok" : " failed"));
                                }))
                        .build())
                .settings(LaneSettings.DEFAULT.withRetryPolicy(
                        RetryPolicy.DEFAULT.withMaxRetries(1).withBackoff(Duration.ZERO, Duration.ZERO)))
                .deadLetterQueue(queue)
                .schedulerParallelism(2)
                .build();
        side.prepare(RuntimeContext.standalone()).block(TIMEOUT);
        side.start();
        started.add(side);
        return side;
    }

    private void logSaga(AggregateId id, String line) {
        sagaLog.computeIfAbsent(id, key -> new CopyOnWriteArrayList<>()).add(line);
    }

    /** For restart tests: a new event side over a queue that must still hold what an earlier one parked. */
    protected final CompositeEventDispatcher start(DeadLetterQueue queue) {
        return start(queue, HandlerTimeout.DEFAULT);
    }

    private CompositeEventDispatcher start(DeadLetterQueue queue, HandlerTimeout handlerTimeout) {
        bus = DomainEventBuses.inMemory();
        CompositeEventDispatcher side = CompositeEventDispatcher.builder("DeadLetterSide", bus)
                .processor(processor(POISONED, true))
                .processor(processor(HEALTHY, false))
                .settings(LaneSettings.DEFAULT
                        .withRetryPolicy(
                                RetryPolicy.DEFAULT.withMaxRetries(1).withBackoff(Duration.ZERO, Duration.ZERO))
                        .withHandlerTimeout(handlerTimeout))
                .deadLetterQueue(queue)
                .retryRequestPolling(Duration.ofMillis(50), Schedulers.parallel())
                .schedulerParallelism(2)
                .build();
        side.prepare(RuntimeContext.standalone()).block(TIMEOUT);
        side.start();
        started.add(side);
        return side;
    }

    protected final void publish(AggregateId id, int... versions) {
        for (int version : versions) {
            bus.publish(stream(id, version)).block(TIMEOUT);
        }
    }

    /** Publishes {@link #undecoded}{@code (id, version)}: a stream as a bus hands over one it could not decode. */
    protected final void publishUndecoded(AggregateId id, int version) {
        bus.publish(undecoded(id, version)).block(TIMEOUT);
    }

    protected static AggregateId fresh(String label) {
        return AggregateId.of(ORDER, label + "-" + UUID.randomUUID());
    }

    /** The {@code Poisoned} processor fails on this stream until {@link #cure()}. */
    protected final void poison(AggregateId id, int version) {
        poisoned = stream -> stream.aggregateId().equals(id) && stream.version() == version;
    }

    protected final void cure() {
        poisoned = stream -> false;
    }

    protected final Journal journal() {
        return journal;
    }

    private void hold(AggregateId id, int version, Mono<Void> until) {
        held = Map.of(id + " v" + version, until);
    }

    /** A retry whose delivery of the head holds until {@code release} completes. */
    private record HeldRetry(Mono<RetryOutcome> outcome, Sinks.Empty<Void> release) {}

    /** Parks v2 of {@code id} with v3 behind it, cures it, and starts a retry held in its delivery of v2. */
    private HeldRetry retryHeldAtTheHead(CompositeEventDispatcher side, AggregateId id) {
        publish(id, 1, 2, 3);
        awaitParked(side.deadLetters(), id, 2);
        cure();
        Sinks.Empty<Void> release = Sinks.empty();
        hold(id, 2, release.asMono());
        Mono<RetryOutcome> retry = side.deadLetters().retry(POISONED, id).cache();
        retry.subscribe();
        journal.awaitStarted(POISONED, id, 2, 3); // twice before it was parked, now the retry
        return new HeldRetry(retry, release);
    }

    /** Waits until the sequence holds {@code size} letters; returns them, head first. */
    protected static List<DeadLetter> awaitParked(DeadLetters deadLetters, AggregateId id, int size) {
        return awaitParked(POISONED, deadLetters, id, size);
    }

    /** Waits until {@code processor}'s sequence holds {@code size} letters; returns them, head first. */
    protected static List<DeadLetter> awaitParked(String processor, DeadLetters deadLetters, AggregateId id, int size) {
        return Awaitility.await()
                .atMost(TIMEOUT)
                .until(() -> deadLetters.list(processor, id).block(TIMEOUT), letters -> letters.size() == size);
    }

    private EventProcessor processor(String name, boolean failing) {
        return EventProcessor.builder(name, ProcessorKind.HANDLER)
                .on(
                        ORDER,
                        Touched.class,
                        (event, context) -> Mono.defer(() -> {
                            DomainEventStream stream = context.stream();
                            journal.started(name, stream);
                            if (failing && poisoned.test(stream)) {
                                return Mono.error(new IllegalStateException(
                                        "poisoned " + stream.aggregateId() + " v" + stream.version()));
                            }
                            Mono<Void> until =
                                    failing ? held.get(stream.aggregateId() + " v" + stream.version()) : null;
                            Mono<Void> handled = Mono.fromRunnable(() -> journal.handled(name, stream));
                            return until == null ? handled : until.then(handled);
                        }))
                .build();
    }

    protected static DomainEventStream stream(AggregateId id, int version) {
        return new DomainEventStream(
                UUID.randomUUID().toString(),
                id,
                version,
                "request-" + version,
                "command-" + version,
                List.of(new DomainEvent(1, new Touched(id.id() + " v" + version))),
                Instant.now().truncatedTo(ChronoUnit.MICROS),
                Map.of());
    }

    /** The type name of {@link #undecoded}'s event: a later release's name for {@link Touched} at revision 2. */
    protected static final String UNDECODED_TYPE = "sales.Touched";

    /** The event of {@link #undecoded}, as it was encoded: {@link Touched}'s JSON. */
    protected static EncodedPayload encoded(AggregateId id, int version) {
        return new EncodedPayload(UNDECODED_TYPE, 2, "{\"label\":\"" + id.id() + " v" + version + "\"}");
    }

    /** A stream whose one event a bus could not decode: {@link #encoded}, under a name no codec here knows. */
    protected static DomainEventStream undecoded(AggregateId id, int version) {
        DomainEventStream stream = stream(id, version);
        UndecodedPayload payload = new UndecodedPayload(
                encoded(id, version), "java.lang.IllegalArgumentException: Unknown payload type " + UNDECODED_TYPE);
        return new DomainEventStream(
                stream.id(),
                id,
                version,
                stream.requestId(),
                stream.commandId(),
                List.of(new DomainEvent(1, payload)),
                stream.createdAt(),
                stream.headers());
    }

    /** Refuses every command with an {@link IllegalStateException}; records each request id sent, in order. */
    private static final class RefusingGateway implements CommandGateway {
        private final List<String> requestIds = new CopyOnWriteArrayList<>();

        List<String> requestIds() {
            return List.copyOf(requestIds);
        }

        @Override
        public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage) {
            return Mono.defer(() -> {
                requestIds.add(command.requestId());
                return Mono.error(new IllegalStateException("insufficient funds for " + command.aggregateId()));
            });
        }

        @Override
        public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage, Duration timeout) {
            return send(command, waitStage);
        }
    }

    /** Forwards everything but {@link #evict}, which it drops. */
    private static final class EvictingNothing extends ForwardingDeadLetterQueue {
        EvictingNothing(DeadLetterQueue queue) {
            super(queue);
        }

        @Override
        public Mono<Void> evict(DeadLetter letter) {
            return Mono.empty();
        }
    }

    /** What each processor started and handled, per aggregate, in order; waits are bounded by {@link #TIMEOUT}. */
    protected static final class Journal {
        private final Map<String, List<Integer>> handled = new ConcurrentHashMap<>();
        private final Map<String, List<Integer>> started = new ConcurrentHashMap<>();

        synchronized void started(String processor, DomainEventStream stream) {
            started.computeIfAbsent(key(processor, stream.aggregateId()), k -> new ArrayList<>())
                    .add(stream.version());
            notifyAll();
        }

        synchronized void handled(String processor, DomainEventStream stream) {
            handled.computeIfAbsent(key(processor, stream.aggregateId()), k -> new ArrayList<>())
                    .add(stream.version());
            notifyAll();
        }

        public synchronized List<Integer> handled(String processor, AggregateId id) {
            return List.copyOf(handled.getOrDefault(key(processor, id), List.of()));
        }

        public void awaitHandled(String processor, AggregateId id, int version) {
            await(handled, processor, id, version, 1);
        }

        void awaitStarted(String processor, AggregateId id, int version, int times) {
            await(started, processor, id, version, times);
        }

        private synchronized void await(
                Map<String, List<Integer>> seen, String processor, AggregateId id, int version, int times) {
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (Collections.frequency(seen.getOrDefault(key(processor, id), List.of()), version) < times) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError(processor + " did not reach " + id + " v" + version + " within " + TIMEOUT
                            + "; handled " + handled.get(key(processor, id)));
                }
                try {
                    wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted", e);
                }
            }
        }

        private static String key(String processor, AggregateId id) {
            return processor + "/" + id;
        }
    }
}
