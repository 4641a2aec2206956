package dev.lanes.dispatch;

import dev.lanes.lifecycle.ActivityLease;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * An admitted exchange inside the dispatcher: its lease, timings and attempts, and its own link in its lane's queue.
 *
 * <p>Phases: {@code QUEUED -> RUNNING -> SETTLED}, or {@code QUEUED -> SETTLED} when a force stop takes it before it ran.
 * The lane's owner {@linkplain #tryStart() starts} it before calling the handler, and whoever {@linkplain #trySettle()
 * settles} it first (the owner acknowledging it, or a force stop rejecting it) is the only one to tell its source. So a
 * force stop never rejects an exchange whose handler then runs.
 *
 * <p>{@code attempts} and {@code startedAt} are touched only by the lane's current owner; ownership passes between
 * threads through executor hand-offs, which order the accesses.
 */
final class Envelope<M> extends LaneNode {
    static final int QUEUED = 0;
    static final int RUNNING = 1;
    private static final int SETTLED = 2;
    private static final VarHandle PHASE;

    static {
        try {
            PHASE = MethodHandles.lookup().findVarHandle(Envelope.class, "phase", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final MessageExchange<M> exchange;
    final ActivityLease lease;
    final long admittedAt;

    int attempts;
    long startedAt;
    volatile @Nullable HandlerSubscriber<M> running;

    @SuppressWarnings("unused") // accessed through PHASE
    private volatile int phase;

    Envelope(MessageExchange<M> exchange, ActivityLease lease, long admittedAt) {
        this.exchange = exchange;
        this.lease = lease;
        this.admittedAt = admittedAt;
    }

    /** Owner only, before each attempt: false if a force stop settled it first (then the handler must not run). */
    boolean tryStart() {
        return PHASE.compareAndSet(this, QUEUED, RUNNING) || (int) PHASE.getVolatile(this) == RUNNING;
    }

    /** True for exactly one caller: the one that acknowledges or rejects the exchange. */
    boolean trySettle() {
        return settle() >= 0;
    }

    /** Settles it if no one has: the phase it was settled from ({@link #QUEUED} or {@link #RUNNING}), else -1. */
    int settle() {
        for (; ; ) {
            int current = (int) PHASE.getVolatile(this);
            if (current == SETTLED) {
                return -1;
            }
            if (PHASE.compareAndSet(this, current, SETTLED)) {
                return current;
            }
        }
    }
}
