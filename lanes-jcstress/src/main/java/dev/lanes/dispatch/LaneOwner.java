package dev.lanes.dispatch;

/**
 * Drains a lane the way {@code AggregateDispatcher.drain} does, without handlers: the owner takes as many envelopes as
 * the count promised, then subtracts them in one {@link Lane#complete} and lets go when it returns 0.
 */
final class LaneOwner {
    /** What {@link #drain} returns when polling failed: an envelope was counted before it was linked. */
    static final int POLL_FAILED = 9;

    /** A lane whose owner is never handed over to an executor: the checks drain it on their own threads. */
    static final Lane.LaneRunner<String> NO_RUNNER = lane -> {
        throw new IllegalStateException("the checks drain lanes themselves");
    };

    private LaneOwner() {}

    /**
     * Drains {@code lane} as its owner until {@link Lane#complete} returns 0. {@code counted} envelopes were promised
     * by the count, {@code finished} of them are already done. Returns the numbers of the envelopes polled, in order,
     * as digits (0 when none), or {@value #POLL_FAILED} if a poll found no linked envelope.
     */
    static int drain(Lane<String> lane, int counted, int finished) {
        int polled = 0;
        try {
            for (; ; ) {
                if (finished == counted) {
                    counted = lane.complete(finished);
                    finished = 0;
                    if (counted == 0) {
                        return polled;
                    }
                }
                polled = polled * 10 + StressExchange.idOf(lane.poll());
                finished++;
            }
        } catch (RuntimeException countedButNotLinked) {
            return POLL_FAILED;
        }
    }

    /** Drains a lane the caller has just come to own (an offer returned 0). */
    static int drainFromStart(Lane<String> lane) {
        return drain(lane, lane.depth(), 0);
    }
}
