package dev.lanes.command.lane;

import dev.lanes.api.AggregateId;
import dev.lanes.modeling.AggregateState;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import reactor.util.concurrent.Queues;

/**
 * The most recently used aggregate states of one type on this instance, so a hot aggregate is not replayed for every
 * command. Safe because one lane owns an aggregate at a time here; another instance's writes show up as a version
 * conflict at append, which evicts the stale entry.
 *
 * <p>Thread-safety: the states are split by the aggregate id's hash into stripes (a power of two, up to four per
 * core), each an LRU map under its own monitor, held only for a map operation: lanes on different cores rarely meet on
 * one. Eviction is least-recently-used within a stripe; the cache holds at most {@code capacity} states in all (each
 * stripe its share, rounded up).
 */
final class StateCache<S> {
    private final Stripe<S>[] stripes;
    private final int mask;

    StateCache(int capacity) {
        this(capacity, stripesFor(capacity, Runtime.getRuntime().availableProcessors()));
    }

    /** Up to four stripes per core, a power of two, never more than the capacity (one if it is zero). */
    static int stripesFor(int capacity, int cores) {
        return capacity == 0
                ? 1
                : Math.min(Queues.ceilingNextPowerOfTwo(capacity), Queues.ceilingNextPowerOfTwo(4 * cores));
    }

    /** @param count the number of stripes, a power of two */
    @SuppressWarnings("unchecked")
    StateCache(int capacity, int count) {
        if (Integer.bitCount(count) != 1) {
            throw new IllegalArgumentException("StateCache stripes must be a power of two: " + count);
        }
        int share = capacity == 0 ? 0 : (capacity + count - 1) / count;
        this.stripes = new Stripe[count];
        for (int i = 0; i < count; i++) {
            stripes[i] = new Stripe<>(share);
        }
        this.mask = count - 1;
    }

    @Nullable
    AggregateState<S> get(AggregateId aggregateId) {
        return stripe(aggregateId).get(aggregateId);
    }

    void put(AggregateState<S> state) {
        stripe(state.aggregateId()).put(state);
    }

    void evict(AggregateId aggregateId) {
        stripe(aggregateId).evict(aggregateId);
    }

    /** How many stripes the states are split into. */
    int stripes() {
        return stripes.length;
    }

    private Stripe<S> stripe(AggregateId aggregateId) {
        int hash = aggregateId.hashCode();
        return stripes[(hash ^ (hash >>> 16)) & mask];
    }

    /** One stripe: an access-ordered map that drops its eldest entry beyond its share. */
    private static final class Stripe<S> {
        private final int capacity;
        private final LinkedHashMap<AggregateId, AggregateState<S>> states;

        Stripe(int capacity) {
            this.capacity = capacity;
            this.states = new LinkedHashMap<>(16, 0.75f, true) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<AggregateId, AggregateState<S>> eldest) {
                    return size() > Stripe.this.capacity;
                }
            };
        }

        synchronized @Nullable AggregateState<S> get(AggregateId aggregateId) {
            return states.get(aggregateId);
        }

        synchronized void put(AggregateState<S> state) {
            if (capacity > 0) {
                states.put(state.aggregateId(), state);
            }
        }

        synchronized void evict(AggregateId aggregateId) {
            states.remove(aggregateId);
        }
    }
}
