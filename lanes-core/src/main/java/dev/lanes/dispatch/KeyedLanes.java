package dev.lanes.dispatch;

import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * {@link LaneStrategy#KEYED} lanes: one per aggregate id that holds work, in an open-addressing table that only the
 * producer side writes (keys, their hashes, and the lane of each). An owner whose lane empties retires it and clears
 * its slot with one compare-and-set; the producer finds the slot empty and puts a fresh lane there (a fresh lane is in
 * the producer's cache; a reused one was last written by a worker). Nothing is locked and no count is shared.
 *
 * <p><b>Memory.</b> Retired lanes leave the table at once; the producer drops the keys of empty slots when it
 * rebuilds the table, which it does when three quarters of the slots hold a key, sizing the new table at four times the
 * live lanes but no smaller than {@value #REBUILT_CAPACITY} slots (48 KB). So the table follows what is queued, not how
 * many ids were ever seen; and ids that recur (a thousand accounts in turn) keep their keys between their lanes, so
 * placing a lane for them needs no rebuild and few probes. A table that never fills stays at its first {@value
 * #MIN_CAPACITY} slots.
 *
 * <p><b>Readers.</b> {@link #forEach} (stats, force stop) reads the current table's lanes with volatile reads. A lane
 * is put in its slot with a volatile write before anything is offered to it, so a force stop that misses it is seen by
 * the producer's state check after the offer.
 */
final class KeyedLanes<M> extends LaneRegistry<M> {
    private static final int MIN_CAPACITY = 64;
    private static final int REBUILT_CAPACITY = 4_096;

    private final Lane.LaneRunner<M> runner;
    private final int rebuiltCapacity;
    private volatile Table<M> table = new Table<>(MIN_CAPACITY);
    private int rebuilds; // the producer's only

    KeyedLanes(Lane.LaneRunner<M> runner) {
        this(runner, REBUILT_CAPACITY);
    }

    /**
     * With rebuilt tables as small as {@code rebuiltCapacity} slots (a power of two, at least {@value #MIN_CAPACITY}):
     * for the checks of a rebuild that moves a lane to a smaller table.
     */
    KeyedLanes(Lane.LaneRunner<M> runner, int rebuiltCapacity) {
        if (rebuiltCapacity < MIN_CAPACITY || Integer.bitCount(rebuiltCapacity) != 1) {
            throw new IllegalArgumentException(
                    "rebuiltCapacity must be a power of two of at least " + MIN_CAPACITY + ": " + rebuiltCapacity);
        }
        this.runner = runner;
        this.rebuiltCapacity = rebuiltCapacity;
    }

    @Override
    Lane<M> laneOf(String key, int hash) {
        Table<M> current = table;
        int slot = current.find(key, hash);
        if (slot >= 0) {
            Lane<M> lane = current.lanes.get(slot);
            return lane != null ? lane : place(current, slot, key);
        }
        if (current.full()) {
            current = rebuild(current);
            slot = current.find(key, hash);
        }
        return place(current, current.claim(-slot - 1, key, hash), key);
    }

    @Override
    Lane<M> successor(Lane<M> retired) {
        String key = (String) retired.key;
        Lane<M> current = laneOf(key, key.hashCode());
        if (current != retired) {
            return current; // made after the retired one left its slot
        }
        Table<M> home = table; // the retired lane is still in its slot: its owner has not cleared it yet
        return place(home, home.find(key, key.hashCode()), key);
    }

    @Override
    int complete(Lane<M> lane) {
        int pending = lane.completeOrRetire();
        if (pending == 0) {
            lane.leaveHome();
        }
        return pending;
    }

    @Override
    void forEach(Consumer<Lane<M>> action) {
        AtomicReferenceArray<@Nullable Lane<M>> lanes = table.lanes;
        for (int i = 0; i < lanes.length(); i++) {
            Lane<M> lane = lanes.get(i);
            if (lane != null) {
                action.accept(lane);
            }
        }
    }

    /** Slots in the current table (for tests of the memory bound). */
    int capacity() {
        return table.capacity();
    }

    /** How often the producer rebuilt the table (for tests); read by the producer's thread. */
    int rebuilds() {
        return rebuilds;
    }

    private Lane<M> place(Table<M> home, int slot, String key) {
        Lane<M> lane = new Lane<>(key, runner);
        lane.home(home.lanes, slot);
        home.lanes.set(slot, lane);
        return lane;
    }

    /** A table with the live lanes of {@code old} only, a quarter full at most. */
    private Table<M> rebuild(Table<M> old) {
        int live = 0;
        for (int i = 0; i < old.capacity(); i++) {
            Lane<M> lane = old.lanes.get(i);
            live += lane != null && !lane.isRetired() ? 1 : 0;
        }
        Table<M> fresh = new Table<>(Math.max(rebuiltCapacity, Integer.highestOneBit(Math.max(1, live) * 4 - 1) << 1));
        for (int i = 0; i < old.capacity(); i++) {
            Lane<M> lane = old.lanes.get(i);
            String key = old.keys[i];
            if (lane != null && key != null && !lane.isRetired()) {
                int slot = fresh.claim(-fresh.find(key, old.hashes[i]) - 1, key, old.hashes[i]);
                lane.home(fresh.lanes, slot);
                fresh.lanes.set(slot, lane);
            }
        }
        table = fresh;
        rebuilds++;
        return fresh;
    }

    /** Keys and hashes are the producer's only; lanes are read by anyone and cleared by their owners. */
    private static final class Table<M> {
        final @Nullable String[] keys;
        final int[] hashes;
        final AtomicReferenceArray<@Nullable Lane<M>> lanes;
        private int used;

        Table(int capacity) {
            this.keys = new String[capacity];
            this.hashes = new int[capacity];
            this.lanes = new AtomicReferenceArray<>(capacity);
        }

        int capacity() {
            return hashes.length;
        }

        boolean full() {
            return used >= capacity() - (capacity() >>> 2);
        }

        /** The slot of {@code key}, or {@code -slot - 1} of the empty slot where it would go. */
        int find(String key, int hash) {
            int mask = capacity() - 1;
            for (int i = (hash ^ (hash >>> 16)) & mask; ; i = (i + 1) & mask) {
                String present = keys[i];
                if (present == null) {
                    return -i - 1;
                }
                if (hashes[i] == hash && (present == key || present.equals(key))) {
                    return i;
                }
            }
        }

        int claim(int slot, String key, int hash) {
            keys[slot] = key;
            hashes[slot] = hash;
            used++;
            return slot;
        }
    }
}
