package dev.lanes.dispatch;

import reactor.core.Exceptions;

/**
 * Lanes that became ready together, run one after the other by one worker: one task and one hand-off for all of them,
 * and their settled slots freed once. Used when a publication makes many lanes ready at once (most keyed lanes hold
 * one exchange), in groups small enough that every worker still gets some ({@link #lanesPerTask}).
 */
final class LaneBatch<M> implements Runnable {
    /** Lanes one task runs at most. */
    static final int MAX_LANES = 8;

    private static final int PROCESSORS = Runtime.getRuntime().availableProcessors();

    private final Lane<M>[] lanes;
    private final Lane.LaneRunner<M> runner;

    LaneBatch(Lane<M>[] lanes, Lane.LaneRunner<M> runner) {
        this.lanes = lanes;
        this.runner = runner;
    }

    /**
     * How many of {@code ready} lanes one task runs: 1 (a task per lane) unless there are at least four per processor,
     * then up to {@link #MAX_LANES}.
     */
    static int lanesPerTask(int ready) {
        return Math.max(1, Math.min(MAX_LANES, ready / (4 * PROCESSORS)));
    }

    Lane<M>[] lanes() {
        return lanes;
    }

    /** Runs every lane, even after one of them failed, then frees their slots; rethrows the first failure. */
    @Override
    public void run() {
        int settled = 0;
        Throwable failed = null;
        for (Lane<M> lane : lanes) {
            try {
                settled += runner.drainHeld(lane);
            } catch (Throwable error) {
                Exceptions.throwIfJvmFatal(error);
                if (failed == null) {
                    failed = error;
                } else {
                    failed.addSuppressed(error);
                }
            }
        }
        if (settled > 0) {
            runner.free(settled);
        }
        if (failed != null) {
            throw Exceptions.propagate(failed);
        }
    }
}
