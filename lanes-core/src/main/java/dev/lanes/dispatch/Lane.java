package dev.lanes.dispatch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One serial lane: a queue of admitted envelopes in arrival order and a work-in-progress count, as in Reactor's drain
 * loops.
 *
 * <p><b>Threads.</b> One producer at a time, whoever holds the dispatcher's producer side ({@link LaneWriter}), stages
 * envelopes with {@link #stage} and appends what it staged with {@link #offerStaged}: one link and one count for the
 * whole chain. One owner at a time consumes: whoever moves {@code pending} from 0 to above 0 owns the lane and must run
 * it; the owner keeps it, across threads and asynchronous handler ends, until its {@link #complete} brings {@code
 * pending} back to 0. So exactly one envelope of a lane is handled at a time, in arrival order, without a lock.
 *
 * <p><b>Retirement.</b> A keyed lane leaves its registry when it empties: its owner's last subtraction moves {@code
 * pending} to {@link #RETIRED} instead of 0 ({@link #completeOrRetire}), after which {@link #offerStaged} refuses to
 * count a chain and the producer moves the chain to the key's successor lane ({@link #moveStageTo}).
 */
final class Lane<M> extends LaneStage<M> implements Runnable {
    static final int RETIRED = -1;
    private static final VarHandle PENDING;
    private static final VarHandle HEAD;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            PENDING = lookup.findVarHandle(Lane.class, "pending", int.class);
            HEAD = lookup.findVarHandle(Lane.class, "head", LaneNode.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Object key;
    private final LaneRunner<M> runner;

    /** Envelopes offered and not yet completed, the current one included; {@link #RETIRED} once retired. */
    @SuppressWarnings("unused") // accessed through PENDING
    private volatile int pending;

    /** The last node consumed (the lane itself before the first): written by the owner, read by a force stop. */
    @SuppressWarnings("unused") // accessed through HEAD
    private volatile LaneNode head = this;

    /**
     * The envelope being handled or waiting for its retry; the owner's only (read racily for stats). Null between
     * envelopes.
     */
    @Nullable
    Envelope<M> current;

    /** Envelopes the owner finished and has not yet subtracted from {@code pending}; the owner's only. */
    private int finished;

    Lane(Object key, LaneRunner<M> runner) {
        this.key = key;
        this.runner = runner;
    }

    /** Runs the lane on the calling thread; only its owner may call this, through an executor hand-off. */
    @Override
    public void run() {
        runner.drain(this);
    }

    /**
     * Producer only: appends the staged chain and counts it, one link and one compare-and-set for the whole chain, and
     * empties the stage. Returns the count before it: 0 means the caller now owns the lane and must run it. {@link
     * #RETIRED} means the lane had retired: the stage is kept, for {@link #moveStageTo} its successor.
     */
    int offerStaged() {
        int count = staged();
        linkStaged();
        for (; ; ) {
            int before = (int) PENDING.getVolatile(this);
            if (before == RETIRED) {
                return RETIRED;
            }
            if (PENDING.compareAndSet(this, before, before + count)) {
                clearStage();
                return before;
            }
        }
    }

    /**
     * Owner only: the next envelope; there is one, since {@code pending} counted it after it was linked. The node left
     * behind is linked to itself: a consumed envelope that reached the old generation must not keep every later one of
     * its lane reachable (a young collection would copy the whole queue).
     */
    Envelope<M> poll() {
        LaneNode consumed = (LaneNode) HEAD.getOpaque(this);
        LaneNode next = Objects.requireNonNull(consumed.nextNode(), "counted but not linked");
        HEAD.setRelease(this, next);
        consumed.unlink();
        @SuppressWarnings("unchecked")
        Envelope<M> envelope = (Envelope<M>) next;
        return envelope;
    }

    /** Owner only: the current envelope is finished; it stays counted until the next {@link #complete}. */
    void finish() {
        finished++;
    }

    /**
     * Owner only: subtracts the envelopes finished since the last call from the count and returns the envelopes still
     * pending; at 0 the owner lets go. So a busy lane touches the shared count once per batch, not once per envelope.
     * The owner calls it before it hands the lane on (an asynchronous handler, a retry, a yield), so whoever continues
     * the lane finds the count exact.
     */
    int complete() {
        int done = finished;
        if (done == 0) {
            return (int) PENDING.getVolatile(this);
        }
        finished = 0;
        return (int) PENDING.getAndAdd(this, -done) - done;
    }

    /**
     * Owner only: like {@link #complete}, but a lane with nothing more to do retires in the same compare-and-set.
     * Returns the envelopes still pending; 0 means it retired.
     */
    int completeOrRetire() {
        int done = finished;
        finished = 0;
        for (; ; ) {
            int pending = (int) PENDING.getVolatile(this);
            int next = pending == done ? RETIRED : pending - done;
            if (PENDING.compareAndSet(this, pending, next)) {
                return Math.max(0, next);
            }
        }
    }

    /** Owner only, before it hands the lane on without letting go: subtracts what it finished. */
    void handOver() {
        if (finished > 0) {
            complete();
        }
    }

    /**
     * Owner only, after it retired the lane: clears its {@link KeyedLanes} slot, unless the producer moved the lane
     * meanwhile (then the producer finds it retired).
     */
    void leaveHome() {
        Home<M> at = home;
        if (at != null) {
            at.table().compareAndSet(at.slot(), this, null);
        }
    }

    /** True once the lane retired; a volatile read. */
    boolean isRetired() {
        return (int) PENDING.getVolatile(this) == RETIRED;
    }

    /** Envelopes pending now (0 when retired); a volatile read, so a force stop sees what was counted before it. */
    int depth() {
        return Math.max(0, (int) PENDING.getVolatile(this));
    }

    /**
     * The oldest node that may still be unsettled: walk from here with {@link #nextNode()}, and start again from here on
     * meeting a node linked to itself (consumed meanwhile, see {@link #poll}).
     */
    LaneNode oldest() {
        return (LaneNode) HEAD.getAcquire(this);
    }

    /** What runs the lanes as their owner. */
    interface LaneRunner<M> {
        /** Runs the lane and frees the slots it settled. */
        void drain(Lane<M> lane);

        /** Runs the lane and returns the slots it settled, which the caller frees with {@link #free}. */
        int drainHeld(Lane<M> lane);

        void free(int slots);
    }
}
