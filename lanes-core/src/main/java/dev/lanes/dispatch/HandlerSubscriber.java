package dev.lanes.dispatch;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/**
 * Subscribes to one handler {@code Mono} and reports its end once.
 *
 * <p>An end that arrives while the lane's owner is still inside {@code subscribe} is left to the owner ({@link
 * #endedWhileSubscribing()} tells it), so a handler that completes at once continues the lane on the same thread without
 * a hand-off. A later end, on any thread, is reported to the {@link Completion}. One compare-and-set on each side
 * decides which of the two it is.
 *
 * <p>A {@link HandlerSweep} may {@linkplain #tryTimeOut() time out} an attempt the owner has left: the same
 * compare-and-set decides between the timeout and the handler's own end, so exactly one of them is reported.
 */
final class HandlerSubscriber<M> implements CoreSubscriber<Object> {
    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<HandlerSubscriber> PHASE =
            AtomicIntegerFieldUpdater.newUpdater(HandlerSubscriber.class, "phase");

    private static final int SUBSCRIBING = 0;
    private static final int WAITING = 1;
    private static final int ENDED = 2;

    interface Completion<M> {
        void handlerEnded(Lane<M> lane, Envelope<M> envelope, @Nullable Throwable error);
    }

    final Lane<M> lane;
    final Envelope<M> envelope;
    /** The {@link HandlerSweep}'s count when the attempt went asynchronous (0 when no sweep times it). */
    final long startTick;
    /** Whether this subscribes to the handler's {@link ExchangeHandler#timedOut} answer: its own timeout is final. */
    final boolean afterTimeout;
    /** Whether the sweep warned about this attempt; the sweep's only. */
    boolean warned;

    private final Completion<M> completion;
    private volatile @Nullable Subscription subscription;
    private volatile boolean cancelled;
    private volatile int phase;
    private @Nullable Throwable error;

    HandlerSubscriber(Lane<M> lane, Envelope<M> envelope, Completion<M> completion, long startTick) {
        this(lane, envelope, completion, startTick, false);
    }

    HandlerSubscriber(
            Lane<M> lane, Envelope<M> envelope, Completion<M> completion, long startTick, boolean afterTimeout) {
        this.lane = lane;
        this.envelope = envelope;
        this.completion = completion;
        this.startTick = startTick;
        this.afterTimeout = afterTimeout;
        this.warned = afterTimeout; // warned about already, as the attempt that timed out
    }

    /** Owner only, right after {@code subscribe} returned: true if the handler ended meanwhile (see {@link #error()}). */
    boolean endedWhileSubscribing() {
        return !PHASE.compareAndSet(this, SUBSCRIBING, WAITING);
    }

    /**
     * The timeout's side of the race with the handler's end: true, for the one caller, if the handler had not ended and
     * its owner had left it; from then on its end is ignored, and the caller reports the attempt instead. False while
     * the owner is still inside {@code subscribe} (the owner's thread is held; a later sweep tries again).
     */
    boolean tryTimeOut() {
        return PHASE.compareAndSet(this, WAITING, ENDED);
    }

    /** The handler's error, once it ended; null for success. */
    @Nullable
    Throwable error() {
        return error;
    }

    @Override
    public void onSubscribe(Subscription s) {
        subscription = s;
        if (cancelled) {
            s.cancel();
        } else {
            s.request(Long.MAX_VALUE);
        }
    }

    @Override
    public void onNext(Object ignored) {}

    @Override
    public void onError(Throwable failure) {
        end(failure);
    }

    @Override
    public void onComplete() {
        end(null);
    }

    /** Cancels the handler; its end, if any, is no longer reported. May block if the handler's cancel hook blocks. */
    void cancel() {
        cancelled = true;
        PHASE.set(this, ENDED);
        Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    private void end(@Nullable Throwable failure) {
        this.error = failure; // published by the compare-and-set below
        if (PHASE.compareAndSet(this, SUBSCRIBING, ENDED)) {
            return; // the owner, still subscribing, takes it from here
        }
        if (PHASE.compareAndSet(this, WAITING, ENDED)) {
            completion.handlerEnded(lane, envelope, failure);
        }
    }
}
