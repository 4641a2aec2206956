package dev.lanes.dispatch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.ToIntFunction;

/**
 * Drains a lane the way {@code AggregateDispatcher.drainHeld} does, without handlers: the owner polls as many envelopes
 * as the count promised, finishes each ({@link Lane#finish}), and when it runs out subtracts what it finished in one go
 * ({@link Lane#complete}, or {@link KeyedLanes#complete} for a keyed lane: {@link Lane#completeOrRetire} and {@link
 * Lane#leaveHome}); it lets go when that returns 0.
 */
final class LaneOwner {
    /**
     * What the drains return when a poll found no envelope where the count promised one: an envelope counted before it
     * was linked, or an owner's finished count clobbered (it then subtracts less than it finished).
     */
    static final int POLL_FAILED = 9;
    /** What the drains return when the count never came back to 0: more polled than was ever offered. */
    static final int RAN_AWAY = 8;

    /** The completion of a hashed lane: it never retires. */
    static final ToIntFunction<Lane<String>> HASHED = Lane::complete;

    /** A lane whose owner is never handed over to an executor: the checks drain it on their own threads. */
    static final Lane.LaneRunner<String> NO_RUNNER = new Lane.LaneRunner<>() {
        @Override
        public void drain(Lane<String> lane) {
            throw new IllegalStateException("the checks drain lanes themselves");
        }

        @Override
        public int drainHeld(Lane<String> lane) {
            throw new IllegalStateException("the checks drain lanes themselves");
        }

        @Override
        public void free(int slots) {}
    };

    /** More envelopes than any check offers to one lane. */
    private static final int MAX_POLLS = 9;

    /** The lane's private count and owner field, read by arbiters only, after every actor has finished. */
    private static final VarHandle PENDING;

    private static final VarHandle FINISHED;

    static {
        try {
            MethodHandles.Lookup lane = MethodHandles.privateLookupIn(Lane.class, MethodHandles.lookup());
            PENDING = lane.findVarHandle(Lane.class, "pending", int.class);
            FINISHED = lane.findVarHandle(Lane.class, "finished", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private LaneOwner() {}

    /** Setup of a lane whose owner has polled its first envelope and is handling it. */
    static void takeFirst(Lane<String> lane) {
        lane.current = lane.poll();
    }

    /**
     * The owner, inside the drain that polled its current envelope (and took every envelope counted then), finished
     * that envelope: it drains on until it lets go. Returns the numbers of the envelopes polled, in order, as digits (0
     * when none), {@value #POLL_FAILED} if a poll found no linked envelope, {@value #RAN_AWAY} if it never let go.
     */
    static int finishAndDrain(Lane<String> lane, ToIntFunction<Lane<String>> complete) {
        return drain(lane, complete, 0);
    }

    /** Drains a lane the caller has just come to own (its offer returned 0), as a worker handed the lane would. */
    static int drainFromStart(Lane<String> lane, ToIntFunction<Lane<String>> complete) {
        return drain(lane, complete, lane.depth() - (lane.current != null ? 1 : 0));
    }

    /** The lane's count as it is, unclamped ({@link Lane#depth} shows a negative count as 0). */
    static int pending(Lane<String> lane) {
        return (int) PENDING.getVolatile(lane);
    }

    /** Envelopes an owner finished and has not subtracted: 0 whenever no one owns the lane. */
    static int finished(Lane<String> lane) {
        return (int) FINISHED.get(lane);
    }

    /** The lanes in a registry's table now. */
    static int lanesIn(LaneRegistry<String> lanes) {
        int[] count = {0};
        lanes.forEach(lane -> count[0]++);
        return count[0];
    }

    private static int drain(Lane<String> lane, ToIntFunction<Lane<String>> complete, int available) {
        int polled = 0;
        try {
            for (int polls = 0; ; ) {
                if (lane.current == null) {
                    if (available == 0) {
                        available = complete.applyAsInt(lane);
                        if (available == 0) {
                            return polled;
                        }
                    }
                    if (++polls > MAX_POLLS) {
                        return RAN_AWAY;
                    }
                    available--;
                    lane.current = lane.poll();
                    polled = polled * 10 + StressExchange.idOf(lane.current);
                }
                lane.current = null; // handled and acknowledged
                lane.finish();
            }
        } catch (RuntimeException countedButNotLinked) {
            return POLL_FAILED;
        }
    }
}
