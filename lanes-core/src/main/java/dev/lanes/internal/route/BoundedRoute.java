package dev.lanes.internal.route;

import dev.lanes.internal.Require;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * A bounded, single-consumer, in-memory route: what an in-memory bus holds for one receiver. Values wait in a queue
 * until the consumer requests them; {@link #tryOffer} fails fast when the route holds {@link #capacity()} values, so a
 * producer never waits.
 *
 * <p><b>Threading.</b> Any number of threads may offer at once, without a lock: each value goes into a multi-producer
 * queue (one producer's values stay in its order), and the consumer is called by one offering (or requesting) thread
 * at a time, the others leave as soon as their value is queued (the sink's work-in-progress counter serializes the
 * delivery). The bound is a counter taken before the value is queued and given back when the consumer takes it or the
 * route discards it.
 *
 * @param <T> the value type
 */
public final class BoundedRoute<T> {
    private final Sinks.Many<T> sink;
    private final Flux<T> flux;
    private final int capacity;
    private final AtomicInteger held = new AtomicInteger();

    public BoundedRoute(int capacity) {
        requireCapacity(capacity, "capacity");
        this.capacity = Math.max(8, Queues.ceilingNextPowerOfTwo(capacity));
        // unsafe (not guarded by Reactor against concurrent emitters): its queue takes concurrent offers, and its
        // delivery loop is entered by one thread at a time
        this.sink = Sinks.unsafe()
                .many()
                .unicast()
                .onBackpressureBuffer(Queues.<T>unboundedMultiproducer().get());
        @SuppressWarnings("unchecked")
        Class<T> any = (Class<T>) (Class<?>) Object.class;
        this.flux = sink.asFlux()
                .doOnNext(value -> held.decrementAndGet())
                .doOnDiscard(any, value -> held.decrementAndGet());
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

    /**
     * Offers without waiting, from any thread: {@code OK} on success, {@code FAIL_OVERFLOW} when full, or why the
     * route is gone ({@code FAIL_CANCELLED}, {@code FAIL_TERMINATED}); nothing is kept when it fails.
     */
    public Sinks.EmitResult tryOffer(T value) {
        if (held.incrementAndGet() > capacity) {
            held.decrementAndGet();
            return Sinks.EmitResult.FAIL_OVERFLOW;
        }
        Sinks.EmitResult result = sink.tryEmitNext(value);
        if (result.isFailure()) {
            held.decrementAndGet();
        }
        return result;
    }
}
