package dev.lanes.dispatch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
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
        /** The lane holds its maximum; not queued. */
        FULL,
        /** The table was closed by a force stop; not queued. */
        CLOSED
    }

    private final ConcurrentHashMap<Object, Lane<M>> lanes = new ConcurrentHashMap<>();
    private final int maxPerLane;
    private volatile boolean closed;

    LaneTable(int maxPerLane) {
        this.maxPerLane = maxPerLane;
    }

    Offer offer(Envelope<M> envelope) {
        Offer[] result = new Offer[1];
        lanes.compute(envelope.laneKey, (key, lane) -> {
            if (closed) {
                result[0] = Offer.CLOSED;
                return lane;
            }
            Lane<M> target = lane == null ? new Lane<>(key) : lane;
            if (target.queue.size() >= maxPerLane) {
                result[0] = Offer.FULL;
                return target;
            }
            target.queue.addLast(envelope);
            envelope.lane = target;
            target.depth = target.queue.size();
            result[0] = target.depth == 1 ? Offer.STARTED : Offer.QUEUED;
            return target;
        });
        return result[0];
    }

    /** Removes the completed head and returns the next one, which the caller now owns; drops the lane when empty. */
    @Nullable
    Envelope<M> complete(Lane<M> lane) {
        @SuppressWarnings("unchecked")
        Envelope<M>[] next = new Envelope[1];
        lanes.computeIfPresent(lane.key, (key, current) -> {
            if (current != lane) {
                return current;
            }
            lane.queue.pollFirst();
            lane.depth = lane.queue.size();
            next[0] = lane.queue.peekFirst();
            return lane.queue.isEmpty() ? null : lane;
        });
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
