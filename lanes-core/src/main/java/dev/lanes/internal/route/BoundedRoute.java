package dev.lanes.internal.route;

import dev.lanes.internal.Require;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * A bounded, single-consumer, in-memory route: what an in-memory bus holds for one receiver. Values wait in a bounded
 * queue until the consumer requests them; {@link #tryOffer} fails fast when the queue is full, so a producer never
 * waits. Emission is serialized by this route's monitor, as Reactor sinks require.
 *
 * @param <T> the value type
 */
public final class BoundedRoute<T> {
    private final Sinks.Many<T> sink;
    private final int capacity;

    public BoundedRoute(int capacity) {
        requireCapacity(capacity, "capacity");
        this.capacity = Math.max(8, Queues.ceilingNextPowerOfTwo(capacity)); // Reactor's smallest array queue
        // unsafe (not serialized by Reactor): this route's monitor serializes emission
        this.sink = Sinks.unsafe()
                .many()
                .unicast()
                .onBackpressureBuffer(Queues.<T>get(this.capacity).get());
    }

    /** The single consumer's view; a second subscriber is rejected by Reactor. */
    public Flux<T> flux() {
        return sink.asFlux();
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
}
