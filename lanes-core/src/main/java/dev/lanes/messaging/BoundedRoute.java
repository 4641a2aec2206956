package dev.lanes.messaging;

import dev.lanes.internal.Require;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Scannable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * A bounded, single-consumer, in-memory route: what an in-memory bus holds for one receiver. Values wait in a bounded
 * queue until the consumer requests them.
 *
 * <p>{@link #tryOffer} fails fast when the queue is full; {@link #offer} waits (without blocking a thread) until the
 * consumer takes a value and so frees room. Emission is serialized by this route's monitor, as Reactor sinks require.
 *
 * @param <T> the value type
 */
public final class BoundedRoute<T> {
    private final Sinks.Many<T> sink;
    private final int capacity;
    private final Queue<Runnable> waitingForRoom = new ConcurrentLinkedQueue<>();
    private final AtomicInteger waiting = new AtomicInteger();
    private final Flux<T> flux;

    public BoundedRoute(int capacity) {
        requireCapacity(capacity, "capacity");
        this.capacity = Math.max(8, Queues.ceilingNextPowerOfTwo(capacity)); // Reactor's smallest array queue
        // unsafe (not serialized by Reactor): this route's monitor serializes emission, and an emission may re-enter
        // from the consumer's drain (a waiting offer woken by a value handed out)
        this.sink = Sinks.unsafe()
                .many()
                .unicast()
                .onBackpressureBuffer(Queues.<T>get(this.capacity).get());
        // every value handed to the consumer frees one slot; a request would come before the slots are freed
        this.flux = sink.asFlux().doOnNext(value -> wakeWaiting());
    }

    /** The single consumer's view; a second subscriber is rejected by Reactor. */
    public Flux<T> flux() {
        return flux;
    }

    /** The largest capacity a route can hold: the largest power of two an {@code int} can count. */
    public static final int MAX_CAPACITY = 1 << 30;

    /**
     * Checks a capacity a route will be built with, naming the setting: refused if not positive or above {@link
     * #MAX_CAPACITY} (it would round up past what an {@code int} can hold), never clamped.
     */
    public static int requireCapacity(int capacity, String setting) {
        Require.positive(capacity, setting);
        if (capacity > MAX_CAPACITY) {
            throw new IllegalArgumentException(setting + " must be at most " + MAX_CAPACITY
                    + " (2^30, a route's largest power of two): " + capacity);
        }
        return capacity;
    }

    /** Values the route holds at most: the requested capacity rounded up to a power of two, and at least 8. */
    public int capacity() {
        return capacity;
    }

    /** Offers without waiting: {@code OK} on success, {@code FAIL_OVERFLOW} when full, or why the route is gone. */
    public Sinks.EmitResult tryOffer(T value) {
        Sinks.EmitResult result;
        synchronized (this) {
            result = sink.tryEmitNext(value);
        }
        // before its consumer subscribes, a full buffer reports "no subscriber": it is full all the same
        return result == Sinks.EmitResult.FAIL_ZERO_SUBSCRIBER ? Sinks.EmitResult.FAIL_OVERFLOW : result;
    }

    /** Offers, waiting for room when full; errors when the route was cancelled or terminated. */
    public Mono<Void> offer(T value) {
        return Mono.create(waiter -> attempt(value, waiter, new Attempt()));
    }

    /** One pending offer: {@code claim} lets one thread at a time try to emit it; {@code done} ends it. */
    private static final class Attempt {
        final AtomicBoolean claim = new AtomicBoolean();
        volatile boolean done;
    }

    private void attempt(T value, MonoSink<Void> waiter, Attempt attempt) {
        if (attempt.done || !attempt.claim.compareAndSet(false, true)) {
            return;
        }
        Sinks.EmitResult result = tryOffer(value);
        if (result.isSuccess()) {
            attempt.done = true;
            waiter.success();
        } else if (result != Sinks.EmitResult.FAIL_OVERFLOW) {
            attempt.done = true;
            waiter.error(new IllegalStateException("The route's consumer is gone (" + result + ")"));
        } else {
            waiting.incrementAndGet();
            waitingForRoom.add(() -> attempt(value, waiter, attempt));
            attempt.claim.set(false);
            if (hasRoom()) {
                attempt(value, waiter, attempt); // room freed before we registered: nobody would wake us
            }
        }
    }

    private boolean hasRoom() {
        Integer buffered = sink.scan(Scannable.Attr.BUFFERED);
        return buffered == null || buffered < capacity;
    }

    /**
     * Gives the waiting offers a turn, each at most once per call (a failed attempt registers again, at the tail), and
     * stops as soon as the route is full again.
     */
    private void wakeWaiting() {
        for (int turns = waiting.get(); turns > 0 && hasRoom(); turns--) {
            Runnable next = waitingForRoom.poll();
            if (next == null) {
                return;
            }
            waiting.decrementAndGet();
            next.run();
        }
    }
}
