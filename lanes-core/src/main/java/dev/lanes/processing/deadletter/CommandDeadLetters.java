package dev.lanes.processing.deadletter;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.WaitStage;
import dev.lanes.command.lane.CommandParking;
import dev.lanes.eventsourcing.UndecodedPayload;
import dev.lanes.internal.Ids;
import dev.lanes.internal.Require;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.modeling.CommandRejectedException;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The command side's dead letters: the commands whose retries ran out, parked in the instance's {@link
 * DeadLetterQueue} in one sequence per aggregate, under the processor name {@code commands:<aggregate type>} ({@link
 * #processorName}), and listed, retried and skipped with the same {@link DeadLetters} API and {@code lanes parked
 * list|retry|skip} as the event side's.
 *
 * <p><b>What waits behind a parked command.</b> While an aggregate has a parked command, its later commands are parked
 * behind it without running, and their senders are answered with {@code CommandParkedException}: as for a processor,
 * nothing of that aggregate runs ahead of the head. A command's sender is always answered (the head's with its last
 * error), so a client may resend with the same request id; the resend is parked behind as well until the sequence is
 * released, and then answered from the store.
 *
 * <p><b>Retries.</b> A retry sends each letter's command again through the gateway, head first, with its request id
 * (answered from the store if it was stored after all, run otherwise) and {@link CommandParking#RETRY_HEADER}, so it runs
 * although its sequence is parked; it waits for {@code PROCESSED}, then removes the letter. A command the aggregate now
 * refuses by its rules ({@link CommandRejectedException}) was handled: its letter is removed too. Any other failure
 * stops the retry, and the letter stays the head with the new reason. Commands parked behind the head during a retry are
 * taken by it (it looks at the sequence again once every letter it saw was delivered). Unlike a processor's retry, it
 * runs outside the aggregate's lane (the command goes through the bus to whichever instance owns the aggregate), so two
 * retries of one sequence at once may each send a letter: the request id makes the second an answer from the store.
 *
 * <p>As a {@link RuntimeComponent}, it polls the queue for retries requested from outside ({@code lanes parked retry})
 * while the runtime runs; any instance may take them.
 */
public final class CommandDeadLetters implements DeadLetters, RuntimeComponent {
    private static final Logger log = LoggerFactory.getLogger(CommandDeadLetters.class);
    /** How often a parking the queue failed is tried again, in the lane. */
    static final Duration PARKING_RETRY_INTERVAL = Duration.ofSeconds(1);
    /** How often retries requested from outside are taken from the queue. */
    static final Duration RETRY_POLL_INTERVAL = Duration.ofSeconds(1);

    private static final String PREFIX = "commands:";

    private final DeadLetterQueue queue;
    private final CommandGateway gateway;
    private final Clock clock;
    private final Map<String, TypeParking> types = new LinkedHashMap<>();
    private final DeadLetterSequencer.Storing storing;
    private final RetryRequestPolling polling;

    private CommandDeadLetters(
            DeadLetterQueue queue,
            CommandGateway gateway,
            Collection<MaterializedNamedAggregate> aggregateTypes,
            Scheduler timer,
            Clock clock) {
        this.queue = queue;
        this.gateway = gateway;
        this.clock = clock;
        this.storing =
                DeadLetterSequencer.Storing.untilStored("CommandDeadLetters", queue, PARKING_RETRY_INTERVAL, timer);
        for (MaterializedNamedAggregate type : aggregateTypes) {
            types.put(processorName(type), new TypeParking(processorName(type)));
        }
        this.polling = new RetryRequestPolling(
                "CommandDeadLetters",
                queue,
                this,
                types.keySet(),
                RETRY_POLL_INTERVAL,
                timer,
                () -> true,
                RetryRequestPolling.WHOLE_STREAM);
    }

    /**
     * The command dead letters of {@code aggregateTypes} in {@code queue}, sent again through {@code gateway}.
     *
     * @param timer where failed parkings and requested retries are timed
     */
    public static CommandDeadLetters create(
            DeadLetterQueue queue,
            CommandGateway gateway,
            Collection<MaterializedNamedAggregate> aggregateTypes,
            Scheduler timer) {
        return new CommandDeadLetters(
                Objects.requireNonNull(queue, "queue"),
                Objects.requireNonNull(gateway, "gateway"),
                List.copyOf(aggregateTypes),
                Objects.requireNonNull(timer, "timer"),
                Clock.systemUTC());
    }

    /** The processor name an aggregate type's commands are parked under: {@code commands:<context>.<aggregate>}. */
    public static String processorName(NamedAggregate type) {
        return PREFIX + type.materialize();
    }

    /**
     * The parking of one aggregate type's commands, for {@code CommandDispatcher.Builder#parking}.
     *
     * @throws IllegalArgumentException naming the type if it is not one of this instance's
     */
    public CommandParking parking(MaterializedNamedAggregate type) {
        TypeParking parking = types.get(processorName(type));
        if (parking == null) {
            throw new IllegalArgumentException(
                    this + " has no aggregate type " + type + " (it has " + types.keySet() + ")");
        }
        return parking;
    }

    @Override
    public Set<String> processors() {
        return Set.copyOf(types.keySet());
    }

    @Override
    public Mono<List<DeadLetterSequence>> sequences() {
        return queue.sequences()
                .map(all -> all.stream()
                        .filter(sequence -> types.containsKey(sequence.processor()))
                        .toList());
    }

    @Override
    public Mono<List<DeadLetter>> list(String processor, AggregateId aggregateId) {
        return queue.list(processor, aggregateId);
    }

    @Override
    public Mono<RetryOutcome> retry(String processor, AggregateId aggregateId) {
        return operate(processor, aggregateId, false);
    }

    @Override
    public Mono<RetryOutcome> skip(String processor, AggregateId aggregateId) {
        return operate(processor, aggregateId, true);
    }

    private Mono<RetryOutcome> operate(String processor, AggregateId aggregateId, boolean skipHead) {
        return Mono.defer(() -> {
            Objects.requireNonNull(aggregateId, "aggregateId");
            if (!types.containsKey(Objects.requireNonNull(processor, "processor"))) {
                return Mono.error(new IllegalArgumentException(
                        this + " has no processor '" + processor + "' (it has " + types.keySet() + ")"));
            }
            if (!processor.equals(processorName(aggregateId))) {
                return Mono.error(new IllegalArgumentException(processor + " parks no commands of " + aggregateId
                        + " (its commands are parked under " + processorName(aggregateId) + ")"));
            }
            return passes(
                    processor,
                    aggregateId,
                    skipHead,
                    Long.MIN_VALUE,
                    new RetryOutcome(processor, aggregateId, 0, 0, 0, null));
        });
    }

    /** As the event side's retry: passes over the sequence until it is gone or a letter fails again. */
    private Mono<RetryOutcome> passes(
            String processor, AggregateId aggregateId, boolean skipHead, long after, RetryOutcome sofar) {
        return queue.list(processor, aggregateId).flatMap(letters -> {
            if (letters.isEmpty() || letters.get(0).index() <= after) {
                return Mono.just(sofar);
            }
            long last = letters.get(letters.size() - 1).index();
            return Flux.fromIterable(letters)
                    .index()
                    .concatMap(indexed ->
                            skipHead && indexed.getT1() == 0 ? skip(indexed.getT2()) : resend(indexed.getT2()))
                    .takeUntil(failure -> !failure.isEmpty())
                    .collectList()
                    .flatMap(steps -> {
                        String failure = steps.get(steps.size() - 1);
                        int skipped = skipHead ? 1 : 0;
                        int delivered = steps.size() - skipped - (failure.isEmpty() ? 0 : 1);
                        RetryOutcome total = new RetryOutcome(
                                processor,
                                aggregateId,
                                sofar.delivered() + delivered,
                                sofar.skipped() + skipped,
                                failure.isEmpty() ? 0 : letters.size() - delivered - skipped,
                                failure.isEmpty() ? null : failure);
                        return total.released() ? passes(processor, aggregateId, false, last, total) : Mono.just(total);
                    });
        });
    }

    /** Completes with "" once the head is removed. */
    private Mono<String> skip(DeadLetter head) {
        log.warn("CommandDeadLetters skipped {} without sending it again", head);
        return queue.evict(head).thenReturn("");
    }

    /** Completes with "" once the letter was delivered and removed, or with the reason it stays the head. */
    private Mono<String> resend(DeadLetter letter) {
        CommandMessage parked = Objects.requireNonNull(letter.command(), () -> letter + " holds no command");
        if (parked.command() instanceof UndecodedPayload undecoded) {
            return failedAgain(
                    letter,
                    new IllegalStateException("cannot send " + letter + " again: the dead-letter queue could not"
                            + " decode its command (" + undecoded + ")"));
        }
        CommandMessage again = new CommandMessage(
                        Ids.randomUuid(),
                        parked.aggregateId(),
                        parked.requestId(),
                        parked.command(),
                        parked.createdAt(),
                        parked.headers())
                .withHeader(CommandParking.RETRY_HEADER, Long.toString(letter.index()));
        return gateway.send(again, WaitStage.PROCESSED)
                .then(Mono.just(""))
                .onErrorResume(CommandRejectedException.class, rejected -> {
                    log.warn(
                            "{} was refused by its aggregate when sent again; removed: {}",
                            letter,
                            rejected.toString());
                    return Mono.just("");
                })
                .flatMap(delivered -> queue.evict(letter).thenReturn(""))
                .onErrorResume(error -> failedAgain(letter, error));
    }

    private Mono<String> failedAgain(DeadLetter letter, Throwable error) {
        DeadLetter again = letter.failedAgain(error, clock.instant());
        log.warn("{} failed again on retry and stays the head of its sequence", again);
        return queue.update(again).thenReturn(again.reason());
    }

    private static String processorName(AggregateId aggregateId) {
        return processorName(aggregateId.materialize());
    }

    /** One aggregate type's parking, over the queue. */
    private final class TypeParking implements CommandParking {
        private final String processor;

        TypeParking(String processor) {
            this.processor = Require.notBlank(processor, "processor");
        }

        @Override
        public String processor() {
            return processor;
        }

        @Override
        public boolean holds(CommandMessage command) {
            return queue.isParked(processor, command.aggregateId())
                    && !command.headers().containsKey(RETRY_HEADER);
        }

        @Override
        public Mono<Boolean> parkBehind(CommandMessage command) {
            return storing.store(
                            command, queue.enqueueCommandIfPresent(processor, command, DeadLetterSequencer.BEHIND_HEAD))
                    .hasElement();
        }

        @Override
        public Mono<Void> park(CommandMessage command, Throwable error, int attempts) {
            return storing.store(
                            command, queue.enqueueCommand(processor, command, DeadLetter.reasonOf(error), attempts))
                    .then();
        }

        @Override
        public String toString() {
            return "CommandParking[" + processor + ", " + queue + "]";
        }
    }

    // the polling for requested retries runs while the runtime runs

    @Override
    public String name() {
        return "CommandDeadLetters";
    }

    @Override
    public Mono<Void> prepare(RuntimeContext context) {
        return Mono.empty();
    }

    @Override
    public void start() {
        polling.start();
    }

    @Override
    public void quiesce() {
        polling.stop();
    }

    @Override
    public Mono<Void> stopGracefully() {
        return Mono.fromRunnable(polling::stop);
    }

    @Override
    public void forceStop() {
        polling.stop();
    }

    @Override
    public String toString() {
        return "CommandDeadLetters[" + types.keySet() + ", " + queue + "]";
    }
}
