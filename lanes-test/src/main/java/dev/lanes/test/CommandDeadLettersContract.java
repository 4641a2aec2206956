package dev.lanes.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.lanes.Lanes;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandResult;
import dev.lanes.command.WaitStage;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.command.lane.CommandParkedException;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.modeling.CommandRejectedException;
import dev.lanes.processing.deadletter.CommandDeadLetters;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.ForwardingDeadLetterQueue;
import dev.lanes.processing.deadletter.RetryOutcome;
import dev.lanes.test.logging.LogCapture;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The command side's dead letters, for any {@link DeadLetterQueue}: a command whose retries ran out is parked in the
 * queue under {@code commands:<aggregate type>}, holds its aggregate's later commands, and is sent again in order by a
 * retry (see {@link CommandDeadLetters}). Extend it and implement {@link #createQueue()}; every test uses fresh
 * aggregate ids. A queue whose letters outlive the runtime ({@link DeadLetterQueue#durable()}) also runs the restart
 * test, with a second queue from {@link #createQueue()} over the same storage.
 *
 * <p>The store of these tests fails every append of the aggregates a test poisons, as a database that refuses one
 * aggregate's writes would, until the test cures it; the command side tries each command twice.
 */
public abstract class CommandDeadLettersContract {
    /** How long any wait of these tests may take. */
    protected static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static final NamedAggregate ACCOUNT = NamedAggregate.of("ledger", "account");
    private static final String PROCESSOR = CommandDeadLetters.processorName(ACCOUNT);

    /** Deposits an amount; an amount below zero is refused by the account's rules. */
    public record Deposit(int amount) {}

    /** What a deposit stores. */
    public record Deposited(int amount) {}

    /** Parking is logged at WARN by design: read here, so that it is not reported as unasserted output. */
    @RegisterExtension
    protected final LogCapture logs = LogCapture.standardError();

    private final Set<AggregateId> poisoned = ConcurrentHashMap.newKeySet();
    private final EventStore stored = EventStores.inMemory();
    private final List<Lanes> started = new ArrayList<>();

    /** A new queue; for a durable queue, over the same storage as the ones before it. */
    protected abstract DeadLetterQueue createQueue();

    /** Called after each test's runtimes stopped: close what {@link #createQueue()} opened. */
    protected void afterStopped() {}

    /** One method, so that the runtimes stop before the subclass closes its queues. */
    @AfterEach
    void stopTheRuntimesThenOnlyParkingIsLogged() {
        started.forEach(Lanes::stop);
        afterStopped();
        assertThat(logs.lines())
                .allSatisfy(line ->
                        assertThat(line.level().toString()).as(line.message()).isIn("WARN", "INFO"));
    }

    @Test
    void aCommandWhoseRetriesRanOutIsParkedAndHoldsItsAggregatesLaterCommandsWhileOthersFlow() {
        Lanes lanes = start(createQueue());
        AggregateId held = account();
        AggregateId other = account();
        poisoned.add(held);

        CommandMessage first = CommandMessage.of(held, new Deposit(10), "first-" + held.id());
        assertThatThrownBy(() -> send(lanes, first)).hasStackTraceContaining("refuses writes of " + held);
        List<DeadLetter> letters = letters(lanes, held);
        assertThat(letters).singleElement().satisfies(letter -> {
            assertThat(letter.isCommand()).isTrue();
            // as sent, its time to the microsecond (what a database column keeps)
            assertThat(letter.command())
                    .usingRecursiveComparison()
                    .withComparatorForType(
                            (a, b) -> a.truncatedTo(ChronoUnit.MICROS).compareTo(b.truncatedTo(ChronoUnit.MICROS)),
                            Instant.class)
                    .isEqualTo(first);
            assertThat(letter.attempts()).isEqualTo(2);
            assertThat(letter.reason()).contains("refuses writes of " + held);
        });

        CommandMessage second = CommandMessage.of(held, new Deposit(20), "second-" + held.id());
        assertThatThrownBy(() -> send(lanes, second))
                .isInstanceOf(CommandParkedException.class)
                .hasMessageContaining(PROCESSOR)
                .hasMessageContaining(held.toString());
        assertThat(letters(lanes, held))
                .extracting(letter -> Objects.requireNonNull(letter.command()).requestId())
                .containsExactly(first.requestId(), second.requestId());
        assertThat(lanes.deadLetters().sequences().block(TIMEOUT))
                .filteredOn(sequence -> sequence.aggregateId().equals(held))
                .singleElement()
                .satisfies(sequence -> assertThat(sequence.processor()).isEqualTo(PROCESSOR));

        assertThat(send(lanes, CommandMessage.of(other, new Deposit(5))).version())
                .isEqualTo(1);
        assertThat(streams(held)).isEmpty();

        poisoned.remove(held);
        RetryOutcome outcome = retry(lanes, held);
        assertThat(outcome.delivered()).isEqualTo(2);
        assertThat(outcome.released()).isTrue();
        assertThat(streams(held))
                .extracting(DomainEventStream::requestId)
                .containsExactly(first.requestId(), second.requestId());
        assertThat(letters(lanes, held)).isEmpty();

        // a client's resend with the same request id is answered from the store; nothing runs twice
        CommandResult again = send(lanes, CommandMessage.of(held, new Deposit(20), second.requestId()));
        assertThat(again.version()).isEqualTo(2);
        assertThat(streams(held)).hasSize(2);
        assertThat(send(lanes, CommandMessage.of(held, new Deposit(1))).version())
                .isEqualTo(3);
    }

    @Test
    void aRetryThatFailsAgainKeepsTheHeadWithItsNewReasonAndTheLaterCommandsBehindIt() {
        Lanes lanes = start(createQueue());
        AggregateId held = account();
        poisoned.add(held);
        assertThatThrownBy(() -> send(lanes, CommandMessage.of(held, new Deposit(1))));
        assertThatThrownBy(() -> send(lanes, CommandMessage.of(held, new Deposit(2))))
                .isInstanceOf(CommandParkedException.class);

        RetryOutcome outcome = retry(lanes, held);
        assertThat(outcome.delivered()).isZero();
        assertThat(outcome.remaining()).isEqualTo(2);
        // the retry's sender learns that the append was not confirmed: that is the head's new reason
        assertThat(outcome.failure()).contains("did not reach PROCESSED");
        List<DeadLetter> letters = letters(lanes, held);
        assertThat(letters.get(0).reason()).isEqualTo(outcome.failure());
        assertThat(letters)
                .extracting(letter ->
                        ((Deposit) Objects.requireNonNull(letter.command()).command()).amount())
                .containsExactly(1, 2);
        assertThat(letters.get(0).attempts()).isEqualTo(3);
        assertThat(streams(held)).isEmpty();
    }

    @Test
    void aSkipDropsTheHeadAndSendsTheRestInOrderAndACommandItsAggregateNowRefusesIsHandled() {
        Lanes lanes = start(createQueue());
        AggregateId held = account();
        poisoned.add(held);
        assertThatThrownBy(() -> send(lanes, CommandMessage.of(held, new Deposit(1))));
        assertThatThrownBy(() -> send(lanes, CommandMessage.of(held, new Deposit(-2))))
                .isInstanceOf(CommandParkedException.class);
        assertThatThrownBy(() -> send(lanes, CommandMessage.of(held, new Deposit(3))))
                .isInstanceOf(CommandParkedException.class);
        poisoned.remove(held);

        RetryOutcome outcome = skip(lanes, held);
        assertThat(outcome.skipped()).isEqualTo(1);
        assertThat(outcome.delivered()).isEqualTo(2);
        assertThat(streams(held)).flatExtracting(DomainEventStream::payloads).containsExactly(new Deposited(3));
        assertThat(letters(lanes, held)).isEmpty();
    }

    /**
     * A command sent while a retry of its aggregate's sequence runs, after the retry delivered the head and before it
     * removed it (held there by the queue), is parked behind the head, never run ahead of it; the retry looks at the
     * sequence again once the letters it saw were delivered, and delivers it.
     */
    @Test
    void aCommandParkedBehindTheHeadWhileARetryRunsIsDeliveredByThatRetryInOrder() {
        Sinks.Empty<Void> evicting = Sinks.empty();
        AtomicInteger evictsHeld = new AtomicInteger();
        Lanes lanes = start(new ForwardingDeadLetterQueue(createQueue()) {
            @Override
            public Mono<Void> evict(DeadLetter letter) {
                if (!letter.processor().equals(PROCESSOR) || evictsHeld.getAndIncrement() > 0) {
                    return super.evict(letter);
                }
                return evicting.asMono().then(super.evict(letter));
            }
        });
        AggregateId id = account();
        poisoned.add(id);
        CommandMessage head = CommandMessage.of(id, new Deposit(1));
        assertThatThrownBy(() -> send(lanes, head));
        poisoned.remove(id);

        CompletableFuture<RetryOutcome> retry =
                lanes.deadLetters().retry(PROCESSOR, id).toFuture();
        Awaitility.await().atMost(TIMEOUT).until(() -> evictsHeld.get() == 1);
        CommandMessage later = CommandMessage.of(id, new Deposit(2));
        assertThatThrownBy(() -> send(lanes, later)).isInstanceOf(CommandParkedException.class);
        evicting.tryEmitEmpty();

        RetryOutcome outcome =
                retry.orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
        assertThat(outcome.delivered()).as(outcome.toString()).isEqualTo(2);
        assertThat(outcome.released()).isTrue();
        assertThat(streams(id))
                .extracting(DomainEventStream::requestId)
                .containsExactly(head.requestId(), later.requestId());
        assertThat(letters(lanes, id)).isEmpty();
    }

    @Test
    void parkedCommandsOutliveTheRuntimeAndARetryOnTheNextOneSendsThemInOrder() {
        DeadLetterQueue queue = createQueue();
        assumeThat(queue.durable())
                .as("the queue keeps its letters across restarts")
                .isTrue();
        Lanes before = start(queue);
        AggregateId held = account();
        poisoned.add(held);
        assertThatThrownBy(() -> send(before, CommandMessage.of(held, new Deposit(1))));
        assertThatThrownBy(() -> send(before, CommandMessage.of(held, new Deposit(2))))
                .isInstanceOf(CommandParkedException.class);
        before.stop();

        Lanes after = start(createQueue());
        assertThatThrownBy(() -> send(after, CommandMessage.of(held, new Deposit(3))))
                .isInstanceOf(CommandParkedException.class);
        poisoned.remove(held);
        RetryOutcome outcome = retry(after, held);
        assertThat(outcome.delivered()).isEqualTo(3);
        assertThat(streams(held))
                .flatExtracting(DomainEventStream::payloads)
                .containsExactly(new Deposited(1), new Deposited(2), new Deposited(3));
    }

    private Lanes start(DeadLetterQueue queue) {
        Lanes lanes = Lanes.builder()
                .aggregate(AggregateDefinition.<Integer>builder(ACCOUNT, id -> 0)
                        .handle(Deposit.class, (balance, deposit) -> {
                            if (deposit.amount() < 0) {
                                throw new CommandRejectedException("a deposit must not be negative: " + deposit);
                            }
                            return List.of(new Deposited(deposit.amount()));
                        })
                        .apply(Deposited.class, (balance, deposited) -> balance + deposited.amount())
                        .build())
                .eventStore(new RefusingStore())
                .deadLetterQueue(queue)
                .commandSettings(CommandDispatcher.DEFAULT_SETTINGS.withRetryPolicy(
                        RetryPolicy.DEFAULT.withMaxRetries(1).withBackoff(Duration.ZERO, Duration.ZERO)))
                .commandTimeout(TIMEOUT)
                .build()
                .start();
        started.add(lanes);
        return lanes;
    }

    private static RetryOutcome retry(Lanes lanes, AggregateId id) {
        return Objects.requireNonNull(lanes.deadLetters().retry(PROCESSOR, id).block(TIMEOUT));
    }

    private static RetryOutcome skip(Lanes lanes, AggregateId id) {
        return Objects.requireNonNull(lanes.deadLetters().skip(PROCESSOR, id).block(TIMEOUT));
    }

    private static AggregateId account() {
        return AggregateId.of(ACCOUNT, UUID.randomUUID().toString());
    }

    private static CommandResult send(Lanes lanes, CommandMessage command) {
        return Objects.requireNonNull(
                lanes.gateway().send(command, WaitStage.PROCESSED).block(TIMEOUT), () -> "no answer to " + command);
    }

    private static List<DeadLetter> letters(Lanes lanes, AggregateId id) {
        return Objects.requireNonNull(lanes.deadLetters().list(PROCESSOR, id).block(TIMEOUT));
    }

    private List<DomainEventStream> streams(AggregateId id) {
        return Objects.requireNonNull(stored.load(id, 1).collectList().block(TIMEOUT));
    }

    /** The test's store: refuses every append of a poisoned aggregate, as a transient failure (retried, then parked). */
    private final class RefusingStore extends ForwardingEventStore {
        RefusingStore() {
            super(stored);
        }

        @Override
        public Mono<Void> append(DomainEventStream stream) {
            return poisoned.contains(stream.aggregateId())
                    ? Mono.error(new IllegalStateException("the store refuses writes of " + stream.aggregateId()))
                    : super.append(stream);
        }
    }
}
