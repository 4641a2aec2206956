package dev.lanes.cli;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.MessageExchange;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;

/** A demo message: {@code [sequence, failedOnce]}; records its latency when settled. */
final class DemoExchange implements MessageExchange<long[]> {
    private final AggregateId aggregateId;
    private final long[] message;
    private final ConcurrentHistogram latency;
    private final LongAdder settled;
    private final long createdAt = System.nanoTime();

    DemoExchange(AggregateId aggregateId, long sequence, ConcurrentHistogram latency, LongAdder settled) {
        this.aggregateId = aggregateId;
        this.message = new long[] {sequence, 0};
        this.latency = latency;
        this.settled = settled;
    }

    @Override
    public long[] message() {
        return message;
    }

    @Override
    public AggregateId aggregateId() {
        return aggregateId;
    }

    @Override
    public void acknowledge() {
        latency.recordValue(System.nanoTime() - createdAt);
        settled.increment();
    }

    @Override
    public void reject(Throwable reason) {
        settled.increment();
    }
}
