package dev.lanes.processing.deadletter;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.HandlerTimeoutException;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.event.OwnershipLostException;
import dev.lanes.eventsourcing.PayloadCodecException;
import dev.lanes.internal.Immediate;
import dev.lanes.internal.Internal;
import dev.lanes.internal.exchange.ParkingFailure;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.saga.AttemptedReply;
import dev.lanes.processing.saga.ParkedReply;
import dev.lanes.processing.saga.SagaReply;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.util.retry.Retry;

/**
 * The dead-letter side of one processor's lanes: every method runs in the lane of the aggregate it is about, so the
 * "is this sequence parked?" check, the parking and the retries of one aggregate are ordered with its streams.
 *
 * <p>A stream whose sequence is parked is parked behind it without running. Any other stream runs; when its last
 * attempt (by the lanes' {@link RetryPolicy}; a stream holding an undecodable event has one attempt) fails, it becomes
 * the head of a new sequence, and is acknowledged only once the queue stored it. If the queue cannot store it, its
 * {@link Storing} policy tries again until it did ({@link Storing#untilStored}): never acknowledged before, so
 * nothing is lost and the aggregate's later streams stay behind it.
 *
 * <p>Every parking carries the {@link dev.lanes.event.OwnershipFence} of the stream's exchange. A parking the queue
 * refuses because another instance took the stream's partition over ({@link OwnershipLostException}) is logged, and
 * the stream goes back to its source unacknowledged ({@link AttemptedStream#ownershipLost}): the new owner reads it
 * again; it is not run here either when the refused parking was behind the head.
 */
@Internal
public final class DeadLetterSequencer {
    private static final Logger log = LoggerFactory.getLogger(DeadLetterSequencer.class);
    public static final String BEHIND_HEAD = "parked behind the head of its sequence";

    /** Below every letter's index: a retry's first pass takes the whole sequence. */
    private static final long NO_LETTER = Long.MIN_VALUE;

    /**
     * What becomes of a failed parking (an {@code enqueue} or {@code enqueueIfPresent}, subscribed in the lane): the
     * returned {@code Mono} may retry {@code storing}, or let its error go to the lane.
     */
    @FunctionalInterface
    public interface Storing {
        Mono<DeadLetter> store(Object parked, Mono<DeadLetter> storing);

        /**
         * Every processor's: a parking the queue failed (the database down, say) is logged at WARN and tried again
         * every {@code interval} on {@code timer}, in the lane, until the queue stored it: the stream is not
         * acknowledged meanwhile (its source keeps it; a tracking processor's checkpoint stays below it), and its
         * aggregate's later streams wait behind it, while other aggregates go on. A forced stop cancels the wait; the
         * stream is then delivered again by its source. An {@link OwnershipLostException} is not retried: the stream
         * goes back to its source; nor is an {@link UnsupportedOperationException} (a queue that cannot park saga
         * replies): the reply goes to the lane's parking lot.
         */
        static Storing untilStored(String owner, DeadLetterQueue queue, Duration interval, Scheduler timer) {
            return (stream, storing) -> storing.retryWhen(Retry.fixedDelay(Long.MAX_VALUE, interval)
                    .filter(error -> !(error instanceof OwnershipLostException)
                            && !(error instanceof UnsupportedOperationException))
                    .scheduler(timer)
                    .doBeforeRetry(failed -> log.warn(
                            "{} could not park {} in {} (attempt {}): {}; it is not acknowledged and its aggregate's"
                                    + " later streams wait; trying again in {}",
                            owner,
                            stream,
                            queue,
                            failed.totalRetries() + 1,
                            failed.failure().toString(),
                            interval)));
        }
    }

    /** The {@code replay} of a processor that sends no commands (not a saga): it has no reply letters to deliver. */
    public static Function<DeadLetter, Mono<Void>> noReplies(String processor) {
        return letter -> Mono.error(new IllegalStateException(
                processor + " cannot deliver " + letter + ": it is not a saga, so it has no replies"));
    }

    private final String processor;
    private final DeadLetterQueue queue;
    private final Storing storing;
    private final RetryPolicy retryPolicy;
    private final Clock clock;
    private final Function<Object, Mono<Void>> deliver;
    private final Function<DeadLetter, Mono<Void>> replay;
    private final BiConsumer<DomainEventStream, Throwable> parked;

    /**
     * @param deliver runs a stream or a saga reply through the processor
     * @param replay delivers a reply letter again (a saga's: see {@link ParkedReply})
     * @param parked told of every stream parked, with why (a projection fails its senders' waits)
     */
    public DeadLetterSequencer(
            String processor,
            DeadLetterQueue queue,
            Storing storing,
            RetryPolicy retryPolicy,
            Clock clock,
            Function<Object, Mono<Void>> deliver,
            Function<DeadLetter, Mono<Void>> replay,
            BiConsumer<DomainEventStream, Throwable> parked) {
        this.processor = processor;
        this.queue = queue;
        this.storing = storing;
        this.retryPolicy = retryPolicy;
        this.clock = clock;
        this.deliver = deliver;
        this.replay = replay;
        this.parked = parked;
    }

    /** Handles one attempt at a stream from the bus: parks it behind its sequence, or runs it. */
    public Mono<Void> handle(AttemptedStream exchange) {
        DomainEventStream stream = exchange.stream();
        if (!queue.isParked(processor, stream.aggregateId())) {
            return attempt(exchange, stream);
        }
        return store(exchange, queue.enqueueIfPresent(processor, stream, BEHIND_HEAD, exchange.fence()))
                .doOnNext(letter -> {
                    exchange.markSetAside();
                    parkedBehind(letter);
                })
                .hasElement()
                .onErrorResume(
                        OwnershipLostException.class,
                        lost -> handBack(exchange, lost).thenReturn(true))
                .flatMap(behind -> behind ? Mono.<Void>empty() : attempt(exchange, stream));
    }

    /**
     * Handles one attempt at a saga reply, in the lane of its cause's aggregate: parks it behind that aggregate's
     * sequence for this saga without running it, or runs it; when its last attempt (by the lanes' {@link RetryPolicy})
     * fails, it becomes the head of a new sequence, stored with what reproduces it ({@link ParkedReply}), and is
     * acknowledged to the outbox only once the queue stored it ({@link Storing}, as for streams). A queue that cannot
     * park replies ({@link UnsupportedOperationException}) runs the reply even behind a parked sequence, and leaves its
     * last failure to the lane, which hands the reply to its parking lot.
     */
    public Mono<Void> handleReply(AttemptedReply exchange) {
        SagaReply<?> reply = exchange.reply();
        DomainEventStream cause = reply.cause().stream();
        if (!queue.isParked(processor, cause.aggregateId())) {
            return attemptReply(exchange);
        }
        return storeReply(exchange, queue.enqueueReplyIfPresent(processor, cause, ParkedReply.of(reply), BEHIND_HEAD))
                .doOnNext(letter -> {
                    exchange.markSetAside();
                    log.info(
                            "Parked a reply for {} from {} behind the head of its sequence (index {}): {}",
                            letter.aggregateId(),
                            processor,
                            letter.index(),
                            reply);
                })
                .hasElement()
                // a queue that cannot park replies: the reply runs, as replies did before they were sequenced
                .onErrorResume(UnsupportedOperationException.class, unsupported -> Mono.just(false))
                .flatMap(behind -> behind ? Mono.<Void>empty() : attemptReply(exchange));
    }

    private Mono<Void> attemptReply(AttemptedReply exchange) {
        int attempt = exchange.nextAttempt();
        return deliver.apply(exchange.reply()).onErrorResume(error -> failedReply(exchange, attempt, error));
    }

    /** A reply attempt the lane gave up on at its handler timeout: retried or parked as a failed one is. */
    public Mono<Void> timedOut(AttemptedReply exchange, HandlerTimeoutException timeout) {
        return failedReply(exchange, timeout.attempt(), timeout);
    }

    private Mono<Void> failedReply(AttemptedReply exchange, int attempts, Throwable error) {
        if (retryPolicy.shouldRetry(attempts, error)) {
            return Mono.error(error);
        }
        SagaReply<?> reply = exchange.reply();
        return storeReply(
                        exchange,
                        queue.enqueueReply(
                                processor,
                                reply.cause().stream(),
                                ParkedReply.of(reply),
                                DeadLetter.reasonOf(error),
                                attempts))
                .doOnNext(letter -> {
                    exchange.markSetAside();
                    log.warn(
                            "Parked {} for {} from {} after {} attempt(s): {}",
                            reply,
                            letter.aggregateId(),
                            processor,
                            attempts,
                            letter.reason());
                })
                .then()
                .onErrorMap(ParkingFailure.keeping(error));
    }

    /** Stores a reply's parking through the {@link Storing} policy; the lane's handler timeout does not apply. */
    private Mono<DeadLetter> storeReply(AttemptedReply exchange, Mono<DeadLetter> parking) {
        return Mono.defer(() -> {
                    exchange.storing(true);
                    return storing.store(exchange.reply(), parking);
                })
                .doFinally(signal -> exchange.storing(false));
    }

    private Mono<Void> attempt(AttemptedStream exchange, DomainEventStream stream) {
        int attempt = exchange.nextAttempt();
        Mono<Void> delivering = deliver.apply(stream);
        // handled at once (see EventProcessor): no operators
        return Immediate.then(
                delivering, failed -> failed == null ? Mono.empty() : failedAttempt(exchange, stream, attempt, failed));
    }

    /**
     * An attempt the lane gave up on at its handler timeout (its delivery was cancelled): retried or parked as a failed
     * delivery is, so a stream whose every attempt hangs becomes the head of a sequence too.
     */
    public Mono<Void> timedOut(AttemptedStream exchange, HandlerTimeoutException timeout) {
        return failedAttempt(exchange, exchange.stream(), timeout.attempt(), timeout);
    }

    /**
     * Left to the lane to retry, or parked when the retries are spent. A stream its bus could not decode is parked at
     * once: the same codec cannot read it on a retry (a retry of the sequence, once a codec that reads it is deployed,
     * can).
     */
    private Mono<Void> failedAttempt(AttemptedStream exchange, DomainEventStream stream, int attempt, Throwable error) {
        return !(error instanceof PayloadCodecException) && retryPolicy.shouldRetry(attempt, error)
                ? Mono.error(error)
                : park(exchange, stream, error, attempt).doOnSuccess(parked -> exchange.markSetAside());
    }

    private Mono<Void> park(AttemptedStream exchange, DomainEventStream stream, Throwable error, int attempts) {
        return store(exchange, queue.enqueue(processor, stream, DeadLetter.reasonOf(error), attempts, exchange.fence()))
                .doOnNext(letter -> {
                    log.warn(
                            "Parked a message for {} from {} after {} attempt(s): {}",
                            stream.aggregateId(),
                            processor,
                            attempts,
                            letter.reason());
                    parked.accept(stream, error);
                })
                .then()
                .onErrorResume(OwnershipLostException.class, lost -> {
                    lost.addSuppressed(error);
                    return handBack(exchange, lost);
                })
                .onErrorMap(failure -> {
                    failure.addSuppressed(error);
                    return failure;
                });
    }

    /** Stores a parking through the {@link Storing} policy; the lane's handler timeout does not apply meanwhile. */
    private Mono<DeadLetter> store(AttemptedStream exchange, Mono<DeadLetter> parking) {
        return Mono.defer(() -> {
                    exchange.storing(true);
                    return storing.store(exchange.stream(), parking);
                })
                .doFinally(signal -> exchange.storing(false));
    }

    /**
     * The queue refused to park the stream: another instance took its partition over since this instance was handed
     * the stream, and reads it again from the last commit. It goes back to its source unacknowledged, neither handled
     * nor parked here; nothing else of its sequence changes on this instance.
     */
    private Mono<Void> handBack(AttemptedStream exchange, OwnershipLostException lost) {
        log.warn("{} handed {} back to its source unacknowledged: {}", processor, exchange, lost.getMessage());
        exchange.ownershipLost(lost);
        return Mono.empty();
    }

    private void parkedBehind(DeadLetter letter) {
        log.info(
                "Parked a message for {} from {} behind the head of its sequence (index {})",
                letter.aggregateId(),
                processor,
                letter.index());
        parked.accept(
                letter.requireStream(),
                new IllegalStateException(processor + " parked " + letter.requireStream() + " " + BEHIND_HEAD));
    }

    /** Runs a retry or skip; never errors: the operation's caller is answered instead. */
    public Mono<Void> run(SequenceOperation operation) {
        AggregateId aggregateId = operation.aggregateId();
        return passes(
                        aggregateId,
                        operation.skipsHead(),
                        NO_LETTER,
                        new RetryOutcome(processor, aggregateId, 0, 0, 0, null))
                .doOnNext(operation::answer)
                .doOnError(operation::fail)
                .onErrorResume(error -> Mono.empty())
                .then();
    }

    /**
     * Passes over the sequence until it is gone or a letter fails again. A pass that delivered every letter lists the
     * sequence once more: with the queue shared by instances, the owner of the aggregate's partition may have parked
     * new streams behind the head while this instance ran the retry, and they would otherwise wait for another one.
     * Within one instance nothing is parked meanwhile (the retry holds the aggregate's lane), so that second look
     * finds the sequence gone. A parking on another instance that checked for the head before this retry evicted it,
     * and is stored only after the last look, would wait for the next retry, unless the queue serializes the two as
     * the PostgreSQL queue does (the check locks the letter it finds). Only letters parked after the last one
     * passed (a higher index) are taken: a letter left behind by an eviction that did not happen is never delivered
     * twice.
     */
    private Mono<RetryOutcome> passes(AggregateId aggregateId, boolean skipHead, long after, RetryOutcome sofar) {
        return queue.list(processor, aggregateId).flatMap(letters -> {
            if (letters.isEmpty() || letters.get(0).index() <= after) {
                return Mono.just(sofar);
            }
            long last = letters.get(letters.size() - 1).index();
            return pass(aggregateId, letters, skipHead).flatMap(outcome -> {
                RetryOutcome total = new RetryOutcome(
                        processor,
                        aggregateId,
                        sofar.delivered() + outcome.delivered(),
                        sofar.skipped() + outcome.skipped(),
                        outcome.remaining(),
                        outcome.failure());
                return total.released() ? passes(aggregateId, false, last, total) : Mono.just(total);
            });
        });
    }

    /** What became of one letter in a pass. */
    private record Step(boolean delivered, @Nullable String failure) {
        static final Step DELIVERED = new Step(true, null);
        static final Step SKIPPED = new Step(false, null);
    }

    /** Delivers the letters in order, the head skipped if asked, up to the first that fails again. */
    private Mono<RetryOutcome> pass(AggregateId aggregateId, List<DeadLetter> letters, boolean skipHead) {
        return Flux.fromIterable(letters)
                .index()
                .concatMap(indexed ->
                        skipHead && indexed.getT1() == 0 ? skip(indexed.getT2()) : redeliver(indexed.getT2()))
                .takeUntil(step -> step.failure() != null)
                .collectList()
                .map(steps -> outcome(aggregateId, letters.size(), steps));
    }

    private Mono<Step> skip(DeadLetter head) {
        log.warn("{} skipped {} without delivering it", processor, head);
        return queue.evict(head).thenReturn(Step.SKIPPED);
    }

    private Mono<Step> redeliver(DeadLetter letter) {
        Mono<Void> delivering =
                Mono.defer(() -> letter.isReply() ? replay.apply(letter) : deliver.apply(letter.requireStream()));
        return delivering.materialize().flatMap(signal -> {
            Throwable error = signal.getThrowable();
            if (error == null) {
                return queue.evict(letter).thenReturn(Step.DELIVERED);
            }
            DeadLetter again = letter.failedAgain(error, clock.instant());
            log.warn("{} failed again on retry and stays the head of its sequence: {}", processor, again);
            return queue.update(again).thenReturn(new Step(false, again.reason()));
        });
    }

    private RetryOutcome outcome(AggregateId aggregateId, int size, List<Step> steps) {
        int delivered = (int) steps.stream().filter(Step::delivered).count();
        Step last = steps.isEmpty() ? Step.DELIVERED : steps.get(steps.size() - 1);
        String failure = last.failure();
        int skipped = steps.size() - delivered - (failure == null ? 0 : 1);
        int remaining = failure == null ? 0 : size - delivered - skipped;
        return new RetryOutcome(processor, aggregateId, delivered, skipped, remaining, failure);
    }
}
