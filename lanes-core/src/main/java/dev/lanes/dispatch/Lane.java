package dev.lanes.dispatch;

import java.util.ArrayDeque;

/**
 * One serial lane: its admitted envelopes in arrival order, the head being the one running (or waiting to retry).
 *
 * <p>Guarded by {@link LaneTable}: every access happens inside {@code ConcurrentHashMap.compute} for the lane's key,
 * except the racy {@link #depth} read for stats.
 */
final class Lane<M> {
    final Object key;
    final ArrayDeque<Envelope<M>> queue = new ArrayDeque<>(2);
    volatile int depth;

    Lane(Object key) {
        this.key = key;
    }
}
