package dev.lanes.dispatch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The most frequent aggregate ids over the current and the previous window, in bounded memory: a Space-Saving sketch
 * of {@code capacity} counters per window (Metwally et al.), so a million distinct ids cost the same as sixteen.
 *
 * <p>Thread-safety: one monitor; {@link #record} is called from the dispatcher's serial producer side, {@link #hottest}
 * from stats readers. A record scans the window's counters in flat arrays (hash first), allocating nothing.
 */
final class HotKeyTracker {
    private static final int REPORTED = 10;

    private final int capacity;
    private final long windowNanos;
    private final LongSupplier nanoTime;
    private Window current;
    private Window previous;
    private long windowStart;

    HotKeyTracker(int capacity, long windowNanos, LongSupplier nanoTime) {
        this.capacity = capacity;
        this.windowNanos = windowNanos;
        this.nanoTime = nanoTime;
        this.current = new Window(capacity);
        this.previous = new Window(0);
        this.windowStart = nanoTime.getAsLong();
    }

    synchronized void record(String id) {
        rotateIfDue();
        current.record(id);
    }

    synchronized List<HotKey> hottest() {
        return hottest(1);
    }

    /** The hottest ids, counts scaled by {@code sampling} (one record per {@code sampling} events). */
    synchronized List<HotKey> hottest(int sampling) {
        rotateIfDue();
        Map<String, long[]> merged = new HashMap<>();
        previous.addTo(merged);
        current.addTo(merged);
        List<HotKey> keys = new ArrayList<>(merged.size());
        merged.forEach((id, c) -> keys.add(new HotKey(id, c[0] * sampling, c[1] * sampling)));
        keys.sort(Comparator.comparingLong(HotKey::count).reversed().thenComparing(HotKey::id));
        return keys.size() > REPORTED ? keys.subList(0, REPORTED) : keys;
    }

    private void rotateIfDue() {
        long now = nanoTime.getAsLong();
        if (now - windowStart < windowNanos) {
            return;
        }
        previous = now - windowStart < 2 * windowNanos ? current : new Window(0);
        current = new Window(capacity);
        windowStart = now;
    }

    /** One window's counters: id, its hash, count and over-count error, in parallel arrays. */
    private static final class Window {
        private final String[] ids;
        private final int[] hashes;
        private final long[] counts;
        private final long[] errors;
        private int size;

        Window(int capacity) {
            this.ids = new String[capacity];
            this.hashes = new int[capacity];
            this.counts = new long[capacity];
            this.errors = new long[capacity];
        }

        void record(String id) {
            int hash = id.hashCode();
            int smallest = 0;
            for (int i = 0; i < size; i++) {
                if (hashes[i] == hash && id.equals(ids[i])) {
                    counts[i]++;
                    return;
                }
                if (counts[i] < counts[smallest]) {
                    smallest = i;
                }
            }
            if (size < ids.length) {
                smallest = size++;
                counts[smallest] = 0;
            }
            ids[smallest] = id; // Space-Saving: the new id inherits the smallest count as its possible error
            hashes[smallest] = hash;
            errors[smallest] = counts[smallest];
            counts[smallest]++;
        }

        void addTo(Map<String, long[]> merged) {
            for (int i = 0; i < size; i++) {
                long[] counter = {counts[i], errors[i]};
                merged.merge(ids[i], counter, (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
            }
        }
    }
}
