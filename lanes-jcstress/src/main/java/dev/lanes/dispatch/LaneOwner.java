package dev.lanes.dispatch;

/**
 * Drains a lane the way {@code AggregateDispatcher.drain} does, without handlers: the owner takes as many envelopes as
 * the count promised ({@link Lane#takeOver}), finishes them ({@link Lane#finishCurrent}), subtracts them from the count
 * in one go when it runs out, and lets go when the count is back to 0.
 */
final class LaneOwner {
    /** What the drains return when polling failed: an envelope was counted before it was linked. */
    static final int POLL_FAILED = 9;

    /** A lane whose owner is never handed over to an executor: the checks drain it on their own threads. */
    static final Lane.LaneRunner<String> NO_RUNNER = lane -> {
        throw new IllegalStateException("the checks drain lanes themselves");
    };

    private LaneOwner() {}

    /** Setup of a lane whose owner has taken its first envelope and is handling it. */
    static void takeFirst(Lane<String> lane) {
        lane.takeOver();
        lane.current = lane.poll();
    }

    /**
     * The owner finished its current envelope: drains on until it lets go. Returns the numbers of the envelopes polled,
     * in order, as digits (0 when none), or {@value #POLL_FAILED} if a poll found no linked envelope.
     */
    static int finishAndDrain(Lane<String> lane) {
        int polled = 0;
        try {
            while (lane.finishCurrent()) {
                lane.current = lane.poll();
                polled = polled * 10 + StressExchange.idOf(lane.current);
            }
            return polled;
        } catch (RuntimeException countedButNotLinked) {
            return POLL_FAILED;
        }
    }

    /** Drains a lane the caller has just come to own (an offer returned 0). */
    static int drainFromStart(Lane<String> lane) {
        try {
            lane.takeOver();
            lane.current = lane.poll();
            int first = StressExchange.idOf(lane.current);
            int rest = finishAndDrain(lane);
            return rest == POLL_FAILED ? POLL_FAILED : rest == 0 ? first : Integer.parseInt(first + "" + rest);
        } catch (RuntimeException countedButNotLinked) {
            return POLL_FAILED;
        }
    }
}
