package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.modeling.AggregateState;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * Rebuilds an aggregate's latest state: its latest snapshot (or its initial state) plus the streams after it, applied
 * in version order. The streams are consumed one by one, never held all at once.
 *
 * @param <S> the state type
 */
public final class AggregateLoader<S> {
    private final AggregateDefinition<S> definition;
    private final EventStore eventStore;
    private final SnapshotStore snapshotStore;

    public AggregateLoader(AggregateDefinition<S> definition, EventStore eventStore, SnapshotStore snapshotStore) {
        this.definition = Objects.requireNonNull(definition, "definition");
        this.eventStore = Objects.requireNonNull(eventStore, "eventStore");
        this.snapshotStore = Objects.requireNonNull(snapshotStore, "snapshotStore");
    }

    public AggregateDefinition<S> definition() {
        return definition;
    }

    /**
     * The latest state of {@code aggregateId}; version 0 with the initial state when it has no stream. Errors with
     * {@link IllegalArgumentException} naming both types when {@code aggregateId} is of another aggregate type than
     * this loader's definition (nothing is read then), and with {@link IllegalStateException} when the store returns a
     * gap.
     */
    public Mono<AggregateState<S>> load(AggregateId aggregateId) {
        Objects.requireNonNull(aggregateId, "aggregateId");
        if (!definition.namedAggregate().equals(aggregateId.materialize())) {
            return Mono.error(new IllegalArgumentException("The AggregateLoader of " + definition.namedAggregate()
                    + " cannot load " + aggregateId + ": it is of aggregate type " + aggregateId.materialize()));
        }
        return snapshotStore
                .load(aggregateId)
                .map(this::fromSnapshot)
                .defaultIfEmpty(definition.initial(aggregateId))
                .flatMap(
                        base -> eventStore.load(aggregateId, base.nextVersion()).reduce(base, this::replay));
    }

    @SuppressWarnings("unchecked")
    private AggregateState<S> fromSnapshot(Snapshot snapshot) {
        return new AggregateState<>(snapshot.aggregateId(), snapshot.version(), (S) snapshot.state());
    }

    private AggregateState<S> replay(AggregateState<S> state, DomainEventStream stream) {
        if (stream.version() != state.nextVersion()) {
            throw new IllegalStateException("Event store returned " + stream + " after version " + state.version()
                    + " of " + state.aggregateId() + ": versions must be gapless");
        }
        return definition.evolve(state, stream.version(), stream.payloads());
    }
}
