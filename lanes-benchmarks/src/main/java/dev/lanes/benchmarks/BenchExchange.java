package dev.lanes.benchmarks;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.MessageExchange;
import org.jspecify.annotations.Nullable;

/** A benchmark message: its id, when it was due, and where its settlement is reported. */
final class BenchExchange implements MessageExchange<Integer> {

    /** Told once per exchange, on a dispatcher thread: {@code rejection} is null for an acknowledgement. */
    interface Settlement {
        void settled(BenchExchange exchange, @Nullable Throwable rejection);
    }

    private final AggregateId aggregateId;
    private final int sequence;
    private final Settlement settlement;
    /** {@code System.nanoTime()} at which the message was due to arrive (open-loop harness), else 0. */
    final long intendedAt;
    /** {@code System.nanoTime()} at which the open-loop producer actually emitted it (set before emission), else 0. */
    long emittedAt;

    final boolean hot;
    final boolean slow;

    BenchExchange(
            AggregateId aggregateId, int sequence, long intendedAt, boolean hot, boolean slow, Settlement settlement) {
        this.aggregateId = aggregateId;
        this.sequence = sequence;
        this.intendedAt = intendedAt;
        this.hot = hot;
        this.slow = slow;
        this.settlement = settlement;
    }

    BenchExchange(AggregateId aggregateId, int sequence, Settlement settlement) {
        this(aggregateId, sequence, 0L, false, false, settlement);
    }

    @Override
    public Integer message() {
        return sequence;
    }

    @Override
    public AggregateId aggregateId() {
        return aggregateId;
    }

    @Override
    public void acknowledge() {
        settlement.settled(this, null);
    }

    @Override
    public void reject(Throwable reason) {
        settlement.settled(this, reason);
    }
}
