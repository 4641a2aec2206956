package dev.lanes.internal;

import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;

/**
 * The synchronous fast path of the engine: a {@code Mono} that is a {@link Callable} ({@code Mono.empty()}, {@code
 * just}, {@code fromRunnable}, {@code fromCallable}, {@code error}) is run with a plain call instead of a subscription,
 * as Reactor's own operators do with such sources; any other is composed or subscribed to as usual.
 *
 * <p>What every method here guarantees for an immediate {@code Mono}:
 *
 * <ul>
 *   <li><b>Thread:</b> it runs, and what follows it is called, on the caller's thread, before the method returns.
 *   <li><b>Order:</b> its effect happens before what follows it, exactly once; nothing follows before it ended.
 *   <li><b>Errors:</b> what follows gets the error a subscriber would have seen ({@code onError}'s, unwrapped from
 *       Reactor's checked-exception wrapper), or {@code null} when it completed; its value, if any, is dropped.
 *   <li><b>JVM-fatal errors</b> ({@link Exceptions#throwIfJvmFatal}) are rethrown to the caller, not passed on.
 *   <li><b>Cost:</b> no subscription, no operator; none of these methods allocates. A caller that wants the branch free
 *       of allocation passes what follows as a non-capturing lambda or a field, with its state as arguments ({@link
 *       #then(Mono, Object, Object, Continuation)}).
 * </ul>
 *
 * <p>For any other {@code Mono}, what follows is called from its terminal signal, on the thread that signals it.
 */
public final class Immediate {
    private Immediate() {}

    /** What follows a {@code Mono} once it ended. */
    @FunctionalInterface
    public interface Ending<R> {
        /** @param error the error it ended with, or {@code null} when it completed */
        Mono<R> ended(@Nullable Throwable error);
    }

    /**
     * How a caller goes on after a {@code Mono} whose later end it handles its own way (its own subscriber, or a
     * composition that is not a plain continuation); {@code a} and {@code b} are the caller's state, passed through so
     * that the continuation can be a field or a non-capturing lambda.
     */
    public interface Continuation<A, B, R> {
        /** The {@code Mono} ended at once, on this thread: {@code error} is its error, or {@code null}. */
        R ended(A a, B b, @Nullable Throwable error);

        /** The {@code Mono} has not run: the caller composes it or subscribes to it. */
        R running(A a, B b, Mono<?> running);
    }

    /**
     * The continuation of {@code mono} once it ended: {@code ending}'s {@code Mono}, given the error {@code mono} ended
     * with (or {@code null}). An immediate {@code mono} runs now and {@code ending} is called now (see the class
     * guarantees); any other is composed, so {@code ending} is called when the returned {@code Mono}'s subscriber sees
     * {@code mono} end, and cancelling the returned {@code Mono} cancels {@code mono} while it runs.
     */
    public static <R> Mono<R> then(Mono<?> mono, Ending<R> ending) {
        if (mono instanceof Callable<?> now) {
            return ending.ended(run(now));
        }
        return mono.then().materialize().flatMap(ended -> ending.ended(ended.getThrowable()));
    }

    /**
     * As {@link #then(Mono, Ending)}, and {@code cancelled} runs if the returned {@code Mono} is cancelled while a
     * {@code mono} that is not immediate runs (an immediate one has ended before this returns: nothing to cancel).
     */
    public static <R> Mono<R> then(Mono<?> mono, Ending<R> ending, Runnable cancelled) {
        if (mono instanceof Callable<?> now) {
            return ending.ended(run(now));
        }
        return mono.doOnCancel(cancelled).then().materialize().flatMap(ended -> ending.ended(ended.getThrowable()));
    }

    /**
     * What {@code continuation} answers for {@code mono}: {@link Continuation#ended} with its end if it is immediate
     * (run now, see the class guarantees), else {@link Continuation#running} with it, unsubscribed.
     */
    public static <A, B, R> R then(Mono<?> mono, A a, B b, Continuation<A, B, R> continuation) {
        if (mono instanceof Callable<?> now) {
            return continuation.ended(a, b, run(now));
        }
        return continuation.running(a, b, mono);
    }

    /** Calls it for its effect: the error it signalled, unwrapped, or {@code null} when it completed. */
    private static @Nullable Throwable run(Callable<?> immediate) {
        try {
            immediate.call();
            return null;
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            return Exceptions.unwrap(error);
        }
    }
}
