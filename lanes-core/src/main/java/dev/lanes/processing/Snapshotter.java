package dev.lanes.processing;

import dev.lanes.eventsourcing.AggregateLoader;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.Snapshot;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.internal.Require;
import dev.lanes.modeling.AggregateDefinition;
import java.time.Instant;
import reactor.core.publisher.Mono;

/**
 * A processor that saves a snapshot of an aggregate every {@code everyVersions} versions, so loading it replays at
 * most that many streams. It rebuilds the state from the store (latest snapshot + tail), so it never trusts a cache.
 */
public final class Snapshotter {
    private Snapshotter() {}

    /**
     * @throws IllegalArgumentException naming the value if {@code everyVersions <= 0}
     */
    public static <S> EventProcessor processor(
            String name,
            AggregateDefinition<S> definition,
            EventStore eventStore,
            SnapshotStore snapshotStore,
            int everyVersions) {
        Require.positive(everyVersions, "everyVersions");
        AggregateLoader<S> loader = new AggregateLoader<>(definition, eventStore, snapshotStore);
        return EventProcessor.builder(name, ProcessorKind.SNAPSHOTTER)
                .on(definition.namedAggregate(), Object.class, (event, context) -> {
                    boolean lastOfStream = context.event().sequence()
                            == context.stream().events().size();
                    if (!lastOfStream || context.version() % everyVersions != 0) {
                        return Mono.empty();
                    }
                    return loader.load(context.aggregateId())
                            .filter(state -> state.version() >= context.version())
                            .flatMap(state -> snapshotStore.save(
                                    new Snapshot(state.aggregateId(), state.version(), state.state(), Instant.now())));
                })
                .build();
    }
}
