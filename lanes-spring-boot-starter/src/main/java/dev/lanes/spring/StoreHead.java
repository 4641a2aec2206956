package dev.lanes.spring;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.PositionedStream;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * How far the store's global order goes now, for the types a tracking processor reads: the position its checkpoint must
 * reach before {@link LanesHealthIndicator} reports it caught up. The PostgreSQL store answers with one query ({@code
 * PostgresEventStore.lastPosition}); any other store is read page by page ({@link #scanning}).
 */
@FunctionalInterface
interface StoreHead {
    /** Streams read per page by {@link #scanning}. */
    int PAGE = 1024;

    /** The position of the last stream of {@code types} stored now, or 0 when there is none. */
    Mono<Long> lastPosition(Set<MaterializedNamedAggregate> types);

    /** Reads {@code store}'s global order of those types to its end: fine for the in-memory store, slow for a big one. */
    static StoreHead scanning(EventStore store) {
        return types -> Mono.defer(() -> scanFrom(store, types, 0, 0));
    }

    private static Mono<Long> scanFrom(EventStore store, Set<MaterializedNamedAggregate> types, long from, long last) {
        return store.readAll(from, PAGE, types).collectList().flatMap(page -> {
            if (page.isEmpty()) {
                return Mono.just(last);
            }
            List<PositionedStream> read = page;
            long end = read.get(read.size() - 1).position();
            return read.size() < PAGE ? Mono.just(end) : scanFrom(store, types, end + 1, end);
        });
    }
}
