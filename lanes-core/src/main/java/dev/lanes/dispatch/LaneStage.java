package dev.lanes.dispatch;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The producer's end of a {@link Lane}: the last node offered and the envelopes staged and not yet offered. Only the
 * holder of the dispatcher's producer side ({@link LaneWriter}) touches these fields. (Padding them off the owner's
 * cache line was measured: no gain for hashed lanes, 6 % slower for keyed ones, which are made per exchange.)
 */
abstract class LaneStage<M> extends LaneNode {
    /** The last node offered (the lane itself before the first). */
    private LaneNode tail = this;

    private @Nullable Envelope<M> stagedFirst;
    private @Nullable Envelope<M> stagedLast;
    private int staged;

    /**
     * {@link KeyedLanes} only: the table slot that holds this lane, which its owner clears when it retires. One
     * immutable pair, written by the producer when it places or moves the lane and read by the owner without a lock: two
     * fields could be read torn (a moved lane's new, smaller table with its old slot).
     */
    @Nullable
    Home<M> home;

    /** A table and the slot in it. */
    record Home<M>(AtomicReferenceArray<@Nullable Lane<M>> table, int slot) {}

    /** Producer only: where this lane sits in a {@link KeyedLanes} table. */
    final void home(AtomicReferenceArray<@Nullable Lane<M>> table, int index) {
        home = new Home<>(table, index);
    }

    /**
     * Adds {@code envelope} to the stage, linking it to the envelope staged before it (a fresh object in the producer's
     * cache: no fence). Returns true if it is the first one staged since the last offer.
     */
    final boolean stage(Envelope<M> envelope) {
        Envelope<M> last = stagedLast;
        stagedLast = envelope;
        staged++;
        if (last == null) {
            stagedFirst = envelope;
            return true;
        }
        last.linkNextPlain(envelope);
        return false;
    }

    /** Envelopes staged and not yet offered. */
    final int staged() {
        return staged;
    }

    /** The oldest envelope staged, or null if none is. */
    @Nullable
    final Envelope<M> stagedFirst() {
        return stagedFirst;
    }

    /**
     * Links the staged chain after the last node offered, with a release: whoever acquires the link sees the chain's
     * links and envelopes. The stage stays until {@link #clearStage}: the chain is not counted yet.
     */
    final void linkStaged() {
        tail.linkNext(Objects.requireNonNull(stagedFirst, "nothing staged"));
        tail = Objects.requireNonNull(stagedLast);
    }

    final void clearStage() {
        stagedFirst = null;
        stagedLast = null;
        staged = 0;
    }

    /**
     * Puts this stage in front of {@code successor}'s (older envelopes first) and clears it. Returns true if the
     * successor had nothing staged before.
     */
    final boolean moveStageTo(LaneStage<M> successor) {
        Envelope<M> first = Objects.requireNonNull(stagedFirst, "nothing staged");
        Envelope<M> last = Objects.requireNonNull(stagedLast);
        Envelope<M> next = successor.stagedFirst;
        if (next == null) {
            successor.stagedLast = last;
        } else {
            last.linkNextPlain(next);
        }
        successor.stagedFirst = first;
        successor.staged += staged;
        clearStage();
        return next == null;
    }
}
