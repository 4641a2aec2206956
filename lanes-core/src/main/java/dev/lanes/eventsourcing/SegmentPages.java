package dev.lanes.eventsourcing;

import dev.lanes.api.MaterializedNamedAggregate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The default segment read of {@link EventStore}: whole pages, filtered, read on until full or short. */
final class SegmentPages {
    private SegmentPages() {}

    static Flux<PositionedStream> read(
            EventStore store, long fromPosition, int limit, Set<MaterializedNamedAggregate> types, Segment segment) {
        return fill(store, fromPosition, limit, types, segment, new ArrayList<>())
                .flatMapIterable(page -> page);
    }

    private static Mono<List<PositionedStream>> fill(
            EventStore store,
            long from,
            int limit,
            Set<MaterializedNamedAggregate> types,
            Segment segment,
            List<PositionedStream> kept) {
        return store.readAll(from, limit, types).collectList().flatMap(page -> {
            for (PositionedStream positioned : page) {
                if (kept.size() < limit && segment.contains(positioned.aggregateId())) {
                    kept.add(positioned);
                }
            }
            if (page.size() < limit || kept.size() >= limit) {
                return Mono.just(kept);
            }
            return fill(store, page.get(page.size() - 1).position() + 1, limit, types, segment, kept);
        });
    }
}
