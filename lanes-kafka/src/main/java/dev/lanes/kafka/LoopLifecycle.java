package dev.lanes.kafka;

import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import org.jspecify.annotations.Nullable;

/**
 * Where one {@link ConsumerLoop} is: one {@link LoopState} in one volatile field, moved only by compare-and-set (as
 * {@code LanesRuntime} moves its {@code RuntimeState}). Each transition is won by exactly one caller, which then
 * performs its effects; a caller whose compare-and-set lost recomputes its transition from the winner's state, where it
 * may no longer apply. Thread-safe; no lock is held.
 */
final class LoopLifecycle {
    private static final AtomicReferenceFieldUpdater<LoopLifecycle, LoopState> STATE =
            AtomicReferenceFieldUpdater.newUpdater(LoopLifecycle.class, LoopState.class, "state");

    private volatile LoopState state = LoopState.INITIAL;

    /** The current snapshot. */
    LoopState current() {
        return state;
    }

    /**
     * Moves the state by compare-and-set to what {@code transition} computes from it, recomputed after a lost race.
     *
     * @return the move, or {@code null} when the transition does not apply (it returned {@code null})
     */
    @Nullable
    Moved move(Transition transition) {
        while (true) {
            LoopState from = state;
            LoopState to = transition.apply(from);
            if (to == null) {
                return null;
            }
            if (STATE.compareAndSet(this, from, to)) {
                return new Moved(from, to);
            }
        }
    }

    /** One step of the lifecycle: the next state, or {@code null} when it does not apply to {@code from}. */
    @FunctionalInterface
    interface Transition {
        @Nullable
        LoopState apply(LoopState from);
    }

    /** A transition that took place. */
    record Moved(LoopState from, LoopState to) {}

    @Override
    public String toString() {
        return state.describe();
    }
}
