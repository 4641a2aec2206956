package dev.lanes.cli.engine;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.MessageExchange;

/** A bench message and its own exchange: where it goes, its place in its id's sequence, and how to handle it. */
final class BenchMessage implements MessageExchange<BenchMessage> {
    final AggregateId aggregateId;
    final int type;
    final int id;
    /** 0, 1, 2... per aggregate id. */
    final long sequence;
    /** When it was due (paced source) or created (pulled source), {@code System.nanoTime()}. */
    final long createdAt;

    final boolean hot;
    final boolean slow;
    /** Routed to the stuck lane (the stuck id's, or under HASHED its group's, from the stuck message on). */
    final boolean stuckLane;
    /** The message whose handler never completes. */
    final boolean stuckHead;

    private final EngineProbe probe;

    BenchMessage(
            AggregateId aggregateId,
            int type,
            int id,
            long sequence,
            long createdAt,
            boolean hot,
            boolean slow,
            boolean stuckLane,
            boolean stuckHead,
            EngineProbe probe) {
        this.aggregateId = aggregateId;
        this.type = type;
        this.id = id;
        this.sequence = sequence;
        this.createdAt = createdAt;
        this.hot = hot;
        this.slow = slow;
        this.stuckLane = stuckLane;
        this.stuckHead = stuckHead;
        this.probe = probe;
    }

    @Override
    public BenchMessage message() {
        return this;
    }

    @Override
    public AggregateId aggregateId() {
        return aggregateId;
    }

    @Override
    public void acknowledge() {
        probe.acknowledged(this);
    }

    @Override
    public void reject(Throwable reason) {
        probe.rejected(this);
    }

    @Override
    public String toString() {
        return aggregateId + "#" + sequence;
    }
}
