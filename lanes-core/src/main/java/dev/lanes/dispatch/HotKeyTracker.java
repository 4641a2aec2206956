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
 * <p>Thread-safety: one monitor; {@link #record} is called from the dispatcher's serial intake, {@link #hottest} from
 * stats readers.
 */
final class HotKeyTracker {
    private static final int REPORTED = 10;

    private final int capacity;
    private final long windowNanos;
    private final LongSupplier nanoTime;
    private Map<String, long[]> current = new HashMap<>();
    private Map<String, long[]> previous = Map.of();
    private long windowStart;

    HotKeyTracker(int capacity, long windowNanos, LongSupplier nanoTime) {
        this.capacity = capacity;
        this.windowNanos = windowNanos;
        this.nanoTime = nanoTime;
        this.windowStart = nanoTime.getAsLong();
    }

    synchronized void record(String id) {
        rotateIfDue();
        long[] counter = current.get(id);
        if (counter != null) {
            counter[0]++;
        } else if (current.size() < capacity) {
            current.put(id, new long[] {1, 0});
        } else {
            replaceSmallest(id);
        }
    }

    synchronized List<HotKey> hottest() {
        return hottest(1);
    }

    /** The hottest ids, counts scaled by {@code sampling} (one record per {@code sampling} events). */
    synchronized List<HotKey> hottest(int sampling) {
        rotateIfDue();
        Map<String, long[]> merged = new HashMap<>();
        previous.forEach((id, c) -> merged.put(id, c.clone()));
        current.forEach((id, c) -> merged.merge(id, c.clone(), (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]}));
        List<HotKey> keys = new ArrayList<>(merged.size());
        merged.forEach((id, c) -> keys.add(new HotKey(id, c[0] * sampling, c[1] * sampling)));
        keys.sort(Comparator.comparingLong(HotKey::count).reversed().thenComparing(HotKey::id));
        return keys.size() > REPORTED ? keys.subList(0, REPORTED) : keys;
    }

    private void replaceSmallest(String id) {
        String smallestId = null;
        long smallest = Long.MAX_VALUE;
        for (Map.Entry<String, long[]> entry : current.entrySet()) {
            if (entry.getValue()[0] < smallest) {
                smallest = entry.getValue()[0];
                smallestId = entry.getKey();
            }
        }
        current.remove(smallestId);
        current.put(id, new long[] {smallest + 1, smallest});
    }

    private void rotateIfDue() {
        long now = nanoTime.getAsLong();
        if (now - windowStart < windowNanos) {
            return;
        }
        previous = now - windowStart < 2 * windowNanos ? current : Map.of();
        current = new HashMap<>();
        windowStart = now;
    }
}
