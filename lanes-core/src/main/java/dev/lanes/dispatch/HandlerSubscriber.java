package dev.lanes.dispatch;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/**
 * Subscribes to one handler {@code Mono} and reports its end once to the dispatcher.
 *
 * <p>It also tells whether the end came synchronously, on the thread that subscribed and while it was still inside
 * {@code subscribe}: then the lane's next envelope is handed back to that thread's loop instead of being scheduled again
 * (no thread hop for handlers that complete at once). The fields for that are per invocation, so a late completion on
 * another thread can never be mistaken for a synchronous one.
 */
final class HandlerSubscriber<M> implements CoreSubscriber<Void> {
    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<HandlerSubscriber> DONE =
            AtomicIntegerFieldUpdater.newUpdater(HandlerSubscriber.class, "done");

    interface Completion<M> {
        void handlerEnded(HandlerSubscriber<M> subscriber, @Nullable Throwable error);
    }

    final Envelope<M> envelope;
    final Thread invoker = Thread.currentThread();
    private final Completion<M> completion;
    private volatile @Nullable Subscription subscription;
    private volatile boolean cancelled;
    private volatile int done;

    /** Written and read by {@link #invoker} only. */
    boolean invoking = true;

    boolean advancedSynchronously;

    @Nullable
    Envelope<M> synchronousNext;

    HandlerSubscriber(Envelope<M> envelope, Completion<M> completion) {
        this.envelope = envelope;
        this.completion = completion;
    }

    boolean isSynchronousCompletion() {
        return Thread.currentThread() == invoker && invoking;
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
    public void onNext(Void unused) {}

    @Override
    public void onError(Throwable error) {
        end(error);
    }

    @Override
    public void onComplete() {
        end(null);
    }

    /** Cancels the handler; it will not report an end. May block if the handler's cancel hook blocks. */
    void cancel() {
        cancelled = true;
        DONE.set(this, 1);
        Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    private void end(@Nullable Throwable error) {
        if (DONE.compareAndSet(this, 0, 1)) {
            completion.handlerEnded(this, error);
        }
    }
}
