package dev.lanes.dispatch;

import dev.lanes.runtime.ActivityLease;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.jspecify.annotations.Nullable;

/**
 * An admitted exchange inside the dispatcher: its lease, its lane key, timings and attempts. Settled exactly once
 * ({@link #trySettle()}), by whichever of completion and force stop gets there first.
 *
 * <p>{@code attempts} and {@code startedAt} are touched only by the lane's current owner; ownership passes between
 * threads through scheduler hand-offs, which order the accesses.
 */
final class Envelope<M> {
    private static final AtomicIntegerFieldUpdater<Envelope<?>> SETTLED = newSettledUpdater();

    final MessageExchange<M> exchange;
    final ActivityLease lease;
    final Object laneKey;
    final long admittedAt;
    /** Set once, inside the lane table's compute that queued it. */
    @Nullable
    Lane<M> lane;

    int attempts;
    long startedAt;
    volatile @Nullable HandlerSubscriber<M> running;
    private volatile int settled;

    Envelope(MessageExchange<M> exchange, ActivityLease lease, Object laneKey, long admittedAt) {
        this.exchange = exchange;
        this.lease = lease;
        this.laneKey = laneKey;
        this.admittedAt = admittedAt;
    }

    /** True for exactly one caller: the one that acknowledges or rejects the exchange. */
    boolean trySettle() {
        return SETTLED.compareAndSet(this, 0, 1);
    }

    boolean isSettled() {
        return settled != 0;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static AtomicIntegerFieldUpdater<Envelope<?>> newSettledUpdater() {
        return (AtomicIntegerFieldUpdater) AtomicIntegerFieldUpdater.newUpdater(Envelope.class, "settled");
    }
}
