package dev.lanes.command;

import dev.lanes.api.AggregateId;
import dev.lanes.modeling.AggregateState;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The most recently used aggregate states of one type on this instance, so a hot aggregate is not replayed for every
 * command. Safe because one lane owns an aggregate at a time here; another instance's writes show up as a version
 * conflict at append, which evicts the stale entry.
 *
 * <p>Thread-safety: one monitor; held only for a map operation.
 */
final class StateCache<S> {
    private final int capacity;
    private final LinkedHashMap<AggregateId, AggregateState<S>> states;

    StateCache(int capacity) {
        this.capacity = capacity;
        this.states = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<AggregateId, AggregateState<S>> eldest) {
                return size() > StateCache.this.capacity;
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
