package dev.lanes.kafka;

import dev.lanes.api.AggregateId;
import dev.lanes.messaging.DomainEventStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A read model shared by every instance of a test (as a database table would be): per aggregate the last version
 * applied and the balance. A stream at or below the last version is a redelivery and is skipped; one past the next
 * version is a gap and is recorded as a violation.
 */
final class ReadModel {
    record Row(int version, long balance) {}

    final Map<AggregateId, Row> rows = new ConcurrentHashMap<>();
    final List<String> violations = new CopyOnWriteArrayList<>();
    final AtomicLong applied = new AtomicLong();
    final AtomicLong redelivered = new AtomicLong();

    void apply(DomainEventStream stream) {
        rows.compute(stream.aggregateId(), (id, row) -> {
            Row current = row == null ? new Row(0, 0) : row;
            if (stream.version() <= current.version()) {
                redelivered.incrementAndGet();
                return current;
            }
            if (stream.version() != current.version() + 1) {
                violations.add(id + ": v" + stream.version() + " after v" + current.version());
            }
            applied.incrementAndGet();
            long balance = current.balance();
            for (Object event : stream.payloads()) {
                if (event instanceof Ledger.Credited credited) {
                    balance += credited.amount();
                } else if (event instanceof Ledger.Debited debited) {
                    balance -= debited.amount();
                }
            }
            return new Row(stream.version(), balance);
        });
    }
}
