package dev.lanes.test.tracking;

import dev.lanes.api.AggregateId;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.PositionedStream;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.Bank;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;

/**
 * A projection for the tracking tests: balance and last version per account, the versions it saw out of order, and how
 * many streams it handled. {@link #replay} folds the store the same way, for comparison.
 */
final class Balances {
    /** Balance and version of one account. */
    record Row(long balance, int version) {}

    final Map<AggregateId, Row> rows = new ConcurrentHashMap<>();
    final List<String> outOfOrder = java.util.Collections.synchronizedList(new ArrayList<>());
    final AtomicLong handled = new AtomicLong();

    EventProcessor processor(String name) {
        return EventProcessor.builder(name, ProcessorKind.PROJECTION)
                .on(
                        Bank.ACCOUNT,
                        Deposited.class,
                        (event, context) -> Mono.fromRunnable(() -> apply(context.stream(), event.amount())))
                .build();
    }

    private void apply(DomainEventStream stream, long amount) {
        Row before = rows.getOrDefault(stream.aggregateId(), new Row(0, 0));
        if (stream.version() != before.version() + 1) {
            outOfOrder.add(stream.aggregateId() + " v" + stream.version() + " after v" + before.version());
        }
        rows.put(stream.aggregateId(), new Row(before.balance() + amount, stream.version()));
        handled.incrementAndGet();
    }

    Mono<Void> clear() {
        return Mono.fromRunnable(() -> {
            rows.clear();
            outOfOrder.clear();
            handled.set(0);
        });
    }

    /** The same projection folded straight from the store's global order. */
    static Map<AggregateId, Row> replay(EventStore store) {
        Map<AggregateId, Row> replayed = new ConcurrentHashMap<>();
        long next = 0;
        for (List<PositionedStream> page = page(store, next); !page.isEmpty(); page = page(store, next)) {
            for (PositionedStream positioned : page) {
                long amount = positioned.stream().payloads().stream()
                        .filter(Deposited.class::isInstance)
                        .mapToLong(payload -> ((Deposited) payload).amount())
                        .sum();
                Row before = replayed.getOrDefault(positioned.aggregateId(), new Row(0, 0));
                replayed.put(positioned.aggregateId(), new Row(before.balance() + amount, positioned.version()));
                next = positioned.position() + 1;
            }
        }
        return replayed;
    }

    private static List<PositionedStream> page(EventStore store, long from) {
        return store.readAll(from, 4096).collectList().block(java.time.Duration.ofSeconds(30));
    }
}
