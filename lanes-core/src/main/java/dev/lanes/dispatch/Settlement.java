package dev.lanes.dispatch;

import dev.lanes.dispatch.ExchangeRejectedException.Reason;
import dev.lanes.internal.Immediate;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;

/**
 * How one {@link AggregateDispatcher} settles what its handler did: acknowledged (handled or set aside), retried later
 * in the lane, parked with its error, or handed back to its source (a refusal, a force stop, a timeout while
 * stopping); and what a hung handler's timeout does. Each envelope is settled exactly once ({@link
 * Envelope#trySettle}): whoever settles it first counts it, tells its source and closes its lease; a loser does
 * nothing.
 *
 * <p>Threads: {@link #conclude} and the settling it leads to run on the envelope's lane owner (or on the thread where
 * its handler ended, which is then the owner); {@link #handlerEnded} on whichever thread a handler ends; the timeouts on
 * the sweep's thread. Nothing here is locked. It logs under the dispatcher's logger.
 */
final class Settlement<M> implements HandlerSubscriber.Completion<M> {
    private static final Logger log = LoggerFactory.getLogger(AggregateDispatcher.class);

    /** What became of one attempt, for the lane that made it. */
    enum Step {
        /** Settled here (handled or parked): the lane may take its next envelope, then free the slot. */
        DONE,
        /** The handler goes on asynchronously; its end continues the lane. */
        ASYNC,
        /** A retry is scheduled; it continues the lane. */
        RETRY,
        /** A force stop (or a fault) settled the envelope and freed its slot: the lane stops. */
        STOPPED
    }

    private final AggregateDispatcher<M> dispatcher;
    private final RetryPolicy retryPolicy;
    private final ParkingLot parkingLot;
    private final DispatchCounts counts;

    Settlement(
            AggregateDispatcher<M> dispatcher, RetryPolicy retryPolicy, ParkingLot parkingLot, DispatchCounts counts) {
        this.dispatcher = dispatcher;
        this.retryPolicy = retryPolicy;
        this.parkingLot = parkingLot;
        this.counts = counts;
    }

    /** A handler ended after its lane's owner had left it: settle, then the lane moves on from a worker. */
    @Override
    public void handlerEnded(Lane<M> lane, Envelope<M> envelope, @Nullable Throwable error) {
        envelope.running = null;
        if (dispatcher.forceStopped()) {
            return; // the stop rejected it
        }
        if (conclude(lane, envelope, error) == Step.DONE) {
            dispatcher.moveOn(lane);
        }
    }

    /** Settles an attempt: acknowledged, retried later in the lane, or parked. */
    Step conclude(Lane<M> lane, Envelope<M> envelope, @Nullable Throwable error) {
        long handlerNanos = counts.handlerNanos(envelope);
        if (error == null) {
            return acknowledge(envelope, envelope.exchange.setAside(), handlerNanos);
        }
        if (error instanceof HandlerTimeoutException && !dispatcher.running()) {
            return giveBack(envelope, error);
        }
        if (retryPolicy.shouldRetry(envelope.attempts, error)) {
            counts.retried(handlerNanos);
            Duration backoff = retryPolicy.backoff(envelope.attempts);
            log.debug(
                    "{} retrying {} in {} after: {}",
                    dispatcher,
                    envelope.exchange.aggregateId(),
                    backoff,
                    error.toString());
            dispatcher.retryLater(lane, backoff);
            return Step.RETRY;
        }
        return park(envelope, error, handlerNanos);
    }

    /**
     * A handler timed out while the dispatcher stops: no retry (it would hold the stop for another timeout); the
     * exchange goes back to its source, as a force stop would hand it back.
     */
    private Step giveBack(Envelope<M> envelope, Throwable timeout) {
        boolean settledHere = settleRejected(
                envelope,
                Outcome.CANCELLED,
                new ExchangeRejectedException(
                        Reason.STOPPING,
                        dispatcher + " is stopping and gave up on " + describe(envelope.exchange)
                                + " after its handler timed out (not retried while stopping)",
                        timeout));
        return settledHere ? Step.DONE : Step.STOPPED;
    }

    private Step park(Envelope<M> envelope, Throwable error, long handlerNanos) {
        MessageExchange<M> exchange = envelope.exchange;
        try {
            parkingLot.park(new ParkedMessage(
                    dispatcher.name(),
                    exchange.aggregateId(),
                    exchange.message(),
                    error,
                    envelope.attempts,
                    Instant.now()));
        } catch (Throwable parkingFailed) {
            Exceptions.throwIfJvmFatal(parkingFailed);
            parkingFailed.addSuppressed(error);
            boolean settledHere = settleRejected(
                    envelope,
                    Outcome.REJECTED,
                    new ExchangeRejectedException(
                            Reason.FAULT, dispatcher + " could not park " + exchange.aggregateId(), parkingFailed));
            dispatcher.fail(parkingFailed);
            return settledHere ? Step.DONE : Step.STOPPED;
        }
        return acknowledge(envelope, true, handlerNanos);
    }

    /**
     * Settles a handled or parked envelope and counts its outcome, unless a force stop settled it first; its slot is
     * freed by the lane's owner once the lane has moved on.
     */
    private Step acknowledge(Envelope<M> envelope, boolean parked, long handlerNanos) {
        if (!envelope.trySettle()) {
            return Step.STOPPED;
        }
        counts.acknowledged(parked, handlerNanos);
        try {
            envelope.exchange.acknowledge();
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            log.error("{} could not acknowledge {} to its source", dispatcher, envelope.exchange.aggregateId(), error);
            dispatcher.fail(error);
        }
        envelope.lease.close();
        return Step.DONE;
    }

    /** Settles an envelope unhandled and frees its slot at once: false if someone else settled it. */
    boolean reject(Envelope<M> envelope, Outcome outcome, ExchangeRejectedException reason) {
        if (!settleRejected(envelope, outcome, reason)) {
            return false;
        }
        dispatcher.freeSlots(1);
        return true;
    }

    /** Settles an envelope unhandled; the caller frees its slot. False if someone else settled it. */
    private boolean settleRejected(Envelope<M> envelope, Outcome outcome, ExchangeRejectedException reason) {
        if (!envelope.trySettle()) {
            return false;
        }
        rejected(envelope, outcome, reason);
        return true;
    }

    /** Counts and reports an envelope this caller settled unhandled, and closes its lease; the caller frees its slot. */
    void rejected(Envelope<M> envelope, Outcome outcome, ExchangeRejectedException reason) {
        counts.unhandled(outcome);
        rejectQuietly(envelope.exchange, reason);
        envelope.lease.close();
    }

    /** Hands an exchange that never entered a lane back to its source and frees its slot. */
    void refuse(MessageExchange<M> exchange, Reason reason, String message) {
        counts.unhandled(Outcome.REJECTED);
        rejectQuietly(exchange, new ExchangeRejectedException(reason, message));
        dispatcher.freeSlots(1);
    }

    private void rejectQuietly(MessageExchange<M> exchange, ExchangeRejectedException reason) {
        try {
            exchange.reject(reason);
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            log.error("{} could not reject {} to its source ({})", dispatcher, describe(exchange), reason, error);
        }
    }

    /** The exchange's aggregate id for a message, or what made it unreadable. */
    static String describe(MessageExchange<?> exchange) {
        try {
            return String.valueOf(exchange.aggregateId());
        } catch (RuntimeException unreadable) {
            return "an exchange whose aggregate id cannot be read (" + unreadable + ")";
        }
    }

    /**
     * What the handler-timeout sweep reports: a WARN once per long attempt, and the timeout of a hung one, which is
     * settled like a handler error once the handler said how the attempt ends ({@link ExchangeHandler#timedOut}).
     */
    final class Timeouts implements HandlerSweep.Target<M>, Immediate.Continuation<Lane<M>, Envelope<M>, Boolean> {
        private final HandlerTimeout limits;
        private final ExchangeHandler<M> handler;

        Timeouts(HandlerTimeout limits, ExchangeHandler<M> handler) {
            this.limits = limits;
            this.handler = handler;
        }

        @Override
        public boolean sweeping() {
            return !dispatcher.forceStopped();
        }

        @Override
        public void warn(HandlerSubscriber<M> attempt, Duration ranFor) {
            Envelope<M> envelope = attempt.envelope;
            log.warn(
                    "{} handler for {} has run for more than {} (attempt {}, handling {}); it times out at {}",
                    dispatcher,
                    describe(envelope.exchange),
                    ranFor,
                    envelope.attempts,
                    envelope.exchange.message(),
                    limits.timeout());
        }

        @Override
        public void timeOut(HandlerSubscriber<M> attempt) {
            if (!attempt.tryTimeOut()) {
                return; // the handler ended first (or its owner is still subscribing): its end is reported as usual
            }
            dispatcher.runOnCleanup(attempt::cancel);
            Envelope<M> envelope = attempt.envelope;
            HandlerTimeoutException timeout = new HandlerTimeoutException(
                    dispatcher.name(), describe(envelope.exchange), limits.timeout(), envelope.attempts);
            log.warn("{}: {}", dispatcher, timeout.getMessage());
            if (attempt.afterTimeout || !dispatcher.running()) {
                handlerEnded(attempt.lane, envelope, timeout); // while stopping: handed back, see conclude
                return;
            }
            endAfterTimeout(attempt.lane, envelope, timeout);
        }

        /** Lets the handler say how the timed-out attempt ends ({@link ExchangeHandler#timedOut}), then settles it. */
        private void endAfterTimeout(Lane<M> lane, Envelope<M> envelope, HandlerTimeoutException timeout) {
            Mono<Void> answer;
            try {
                answer = Objects.requireNonNull(handler.timedOut(envelope.exchange, timeout), "timedOut returned null");
            } catch (Throwable error) {
                Exceptions.throwIfJvmFatal(error);
                error.addSuppressed(timeout);
                handlerEnded(lane, envelope, error);
                return;
            }
            Immediate.then(answer, lane, envelope, this);
        }

        /** The handler's answer ended at once: settled here (the answer is ignored). */
        @Override
        public Boolean ended(Lane<M> lane, Envelope<M> envelope, @Nullable Throwable error) {
            handlerEnded(lane, envelope, error);
            return true;
        }

        /** The handler's answer runs on: subscribed, and timed out at last like any attempt. */
        @Override
        public Boolean running(Lane<M> lane, Envelope<M> envelope, Mono<?> answer) {
            HandlerSubscriber<M> subscriber =
                    new HandlerSubscriber<>(lane, envelope, Settlement.this, dispatcher.startTick(), true);
            envelope.running = subscriber;
            if (dispatcher.forceStopped()) { // a force stop that read the cancelled subscriber cancels no other
                envelope.running = null;
                return true;
            }
            answer.subscribe(subscriber);
            if (subscriber.endedWhileSubscribing()) {
                envelope.running = null;
                handlerEnded(lane, envelope, subscriber.error());
            }
            return true;
        }
    }
}
