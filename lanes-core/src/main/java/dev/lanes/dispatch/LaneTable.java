package dev.lanes.dispatch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The lanes that hold work, by lane key. A lane exists from its first admitted envelope until its last one completed,
 * so memory follows what is queued, not how many keys were ever seen.
 *
 * <p>Concurrency: all mutation of a lane happens inside {@code compute} for its key, which serializes the intake (offer),
 * the lane owner (complete) and a force stop (close) on that key. Only the head of a lane runs; the owner that completes
 * it receives the next head and is the only one allowed to run it.
 */
final class LaneTable<M> {

    enum Offer {
        /** Queued in an idle lane: the caller must run it. */
        STARTED,
        /** Queued behind the lane's head: its turn will come. */
        QUEUED,
        /** Queued beyond the lane's bound ({@code PAUSE}): the intake holds back until the lane is under it again. */
        QUEUED_OVER_BOUND,
        /** The lane holds its maximum ({@code REJECT}); not queued. */
        FULL,
        /** The table was closed by a force stop; not queued. */
        CLOSED
    }

    private final ConcurrentHashMap<Object, Lane<M>> lanes = new ConcurrentHashMap<>();
    private final int maxPerLane;
    private final boolean rejectOverBound;
    private final Runnable relieved;
    private final AtomicInteger lanesOverBound = new AtomicInteger();
    private volatile boolean closed;

    /**
     * @param relieved called, outside any lane's lock, when the last lane over its bound came back under it
     */
    LaneTable(int maxPerLane, boolean rejectOverBound, Runnable relieved) {
        this.maxPerLane = maxPerLane;
        this.rejectOverBound = rejectOverBound;
        this.relieved = relieved;
    }

    /** Whether some lane holds more than its bound: the intake should not take more now. */
    boolean overBound() {
        return lanesOverBound.get() > 0;
    }

    Offer offer(Envelope<M> envelope) {
        Offer[] result = new Offer[1];
        lanes.compute(envelope.laneKey, (key, lane) -> {
            if (closed) {
                result[0] = Offer.CLOSED;
                return lane;
            }
            Lane<M> target = lane == null ? new Lane<>(key) : lane;
            if (rejectOverBound && target.queue.size() >= maxPerLane) {
                result[0] = Offer.FULL;
                return target;
            }
            target.queue.addLast(envelope);
            envelope.lane = target;
            target.depth = target.queue.size();
            if (target.depth == maxPerLane + 1) {
                lanesOverBound.incrementAndGet();
                result[0] = Offer.QUEUED_OVER_BOUND;
            } else {
                result[0] = target.depth == 1 ? Offer.STARTED : Offer.QUEUED;
            }
            return target;
        });
        return result[0];
    }

    /** Removes the completed head and returns the next one, which the caller now owns; drops the lane when empty. */
    @Nullable
    Envelope<M> complete(Lane<M> lane) {
        @SuppressWarnings("unchecked")
        Envelope<M>[] next = new Envelope[1];
        boolean[] relief = new boolean[1];
        lanes.computeIfPresent(lane.key, (key, current) -> {
            if (current != lane) {
                return current;
            }
            lane.queue.pollFirst();
            lane.depth = lane.queue.size();
            if (lane.depth == maxPerLane && !rejectOverBound) {
                relief[0] = lanesOverBound.decrementAndGet() == 0;
            }
            next[0] = lane.queue.peekFirst();
            return lane.queue.isEmpty() ? null : lane;
        });
        if (relief[0]) {
            relieved.run();
        }
        return next[0];
    }

    /** Closes the table for good and takes every envelope out of it, heads (running) first in each lane. */
    List<Envelope<M>> close() {
        closed = true;
        List<Envelope<M>> taken = new ArrayList<>();
        for (Object key : lanes.keySet()) {
            lanes.computeIfPresent(key, (k, lane) -> {
                taken.addAll(lane.queue);
                lane.queue.clear();
                lane.depth = 0;
                return null;
            });
        }
        return taken;
    }

    int size() {
        return lanes.size();
    }

    /** {@code [deepest, sum]} over the lanes holding work; racy reads, for stats only. */
    long[] depths() {
        long deepest = 0;
        long sum = 0;
        for (Lane<M> lane : lanes.values()) {
            int depth = lane.depth;
            deepest = Math.max(deepest, depth);
            sum += depth;
        }
        return new long[] {deepest, sum};
    }
}
