package dev.lanes.examples.bank;

import dev.lanes.eventsourcing.Segment;
import dev.lanes.examples.bank.AccountEvent.AccountClosed;
import dev.lanes.examples.bank.AccountEvent.AccountOpened;
import dev.lanes.examples.bank.AccountEvent.Deposited;
import dev.lanes.examples.bank.AccountEvent.Withdrawn;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;

/**
 * An in-memory read model of balances, maintained by a projection. It remembers the last version it applied per
 * account, so a redelivered stream is applied once, and an out-of-order stream would show as a gap.
 */
public final class BalanceProjection {
    /** The projection's consumer group. */
    public static final String NAME = "BalanceProjection";

    private final Map<String, Row> rows = new ConcurrentHashMap<>();

    /** One account's row. */
    public record Row(String owner, long balance, int version, boolean closed, int gaps) {}

    public EventProcessor processor() {
        return EventProcessor.builder(NAME, ProcessorKind.PROJECTION)
                .on(
                        Bank.ACCOUNT,
                        AccountEvent.class,
                        (event, context) -> Mono.fromRunnable(() -> rows.compute(
                                context.aggregateId().id(), (id, row) -> apply(row, event, context.version()))))
                .build();
    }

    private static Row apply(Row row, AccountEvent event, int version) {
        Row current = row == null ? new Row("", 0, 0, false, 0) : row;
        if (version <= current.version()) {
            return current; // a redelivery: already applied
        }
        int gaps = current.gaps() + (version == current.version() + 1 ? 0 : 1);
        if (event instanceof AccountOpened opened) {
            return new Row(opened.owner(), 0, version, false, gaps);
        }
        if (event instanceof Deposited deposited) {
            return new Row(current.owner(), current.balance() + deposited.amount(), version, false, gaps);
        }
        if (event instanceof Withdrawn withdrawn) {
            return new Row(current.owner(), current.balance() - withdrawn.amount(), version, false, gaps);
        }
        return new Row(current.owner(), 0, version, event instanceof AccountClosed, gaps);
    }

    /** Removes the rows of the segment's accounts: what a tracking processor's reset of that segment runs first. */
    public Mono<Void> clear(Segment segment) {
        return Mono.fromRunnable(() -> rows.keySet().removeIf(id -> segment.contains(Bank.account(id))));
    }

    public Map<String, Row> rows() {
        return Map.copyOf(rows);
    }

    public long totalBalance() {
        return rows.values().stream().mapToLong(Row::balance).sum();
    }
}
