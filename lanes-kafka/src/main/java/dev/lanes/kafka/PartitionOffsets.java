package dev.lanes.kafka;

/**
 * Contiguous-commit tracking for one partition: the offsets handed to the lanes, in the order the partition gave them,
 * and which of them are settled. {@link #committable()} is the offset to commit (the next record a new owner reads):
 * the lowest offset not settled, or the one after the last handed out when all are settled. It never passes a record
 * in flight or rejected, whatever order settlements come in.
 *
 * <p>Memory: one slot per offset from the lowest unsettled one to the last handed out; a settled prefix is dropped at
 * once. The consumer bounds it by pausing the partition (see {@link #held()}).
 *
 * <p>Not thread-safe: only the consumer thread calls it (lane threads hand their settlements to that thread).
 */
final class PartitionOffsets {
    private static final byte IN_FLIGHT = 0;
    private static final byte SETTLED = 1;
    private static final byte REJECTED = 2;

    private long[] offsets = new long[16];
    private byte[] states = new byte[16];
    private int head;
    private int size;
    private long next = -1;
    private int inFlight;
    private int rejected;

    /**
     * A record was handed to a lane.
     *
     * @throws IllegalArgumentException if {@code offset} is not after every offset handed out before
     */
    void handedOut(long offset) {
        if (offset < 0 || offset < next) {
            throw new IllegalArgumentException("offset " + offset + " handed out after " + (next - 1));
        }
        if (size == offsets.length) {
            grow();
        }
        int slot = (head + size) & (offsets.length - 1);
        offsets[slot] = offset;
        states[slot] = IN_FLIGHT;
        size++;
        inFlight++;
        next = offset + 1;
    }

    /** A record that is settled as soon as it is seen (parked, or for no receiver here). */
    void skipped(long offset) {
        handedOut(offset);
        settle(offset);
    }

    /** The record at {@code offset} was handled (or parked); {@code false} if it is not in flight here. */
    boolean settle(long offset) {
        int index = find(offset);
        if (index < 0 || states[slot(index)] != IN_FLIGHT) {
            return false;
        }
        states[slot(index)] = SETTLED;
        inFlight--;
        while (size > 0 && states[head] == SETTLED) {
            head = (head + 1) & (offsets.length - 1);
            size--;
        }
        return true;
    }

    /**
     * The record at {@code offset} was handed back unhandled: it stays unsettled, so the commit point never passes it,
     * until {@link #restartAt}. {@code false} if it is not in flight here.
     */
    boolean reject(long offset) {
        int index = find(offset);
        if (index < 0 || states[slot(index)] != IN_FLIGHT) {
            return false;
        }
        states[slot(index)] = REJECTED;
        inFlight--;
        rejected++;
        return true;
    }

    /** The offset to commit, or {@code -1} while nothing was handed out. */
    long committable() {
        return size > 0 ? offsets[head] : next;
    }

    /** Records handed out and neither settled nor rejected. */
    int inFlight() {
        return inFlight;
    }

    /** Records handed back unhandled since the last {@link #restartAt}. */
    int rejected() {
        return rejected;
    }

    /** Slots held: from the lowest unsettled offset to the last handed out. */
    int held() {
        return size;
    }

    /** Forgets everything: the partition is read again from {@code position} (a rewind). */
    void restartAt(long position) {
        head = 0;
        size = 0;
        inFlight = 0;
        rejected = 0;
        next = position;
    }

    private int slot(int index) {
        return (head + index) & (offsets.length - 1);
    }

    /** Binary search over the ascending offsets held; the logical index, or -1. */
    private int find(long offset) {
        int low = 0;
        int high = size - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            long found = offsets[slot(mid)];
            if (found < offset) {
                low = mid + 1;
            } else if (found > offset) {
                high = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    private void grow() {
        long[] grownOffsets = new long[offsets.length * 2];
        byte[] grownStates = new byte[offsets.length * 2];
        for (int i = 0; i < size; i++) {
            grownOffsets[i] = offsets[slot(i)];
            grownStates[i] = states[slot(i)];
        }
        offsets = grownOffsets;
        states = grownStates;
        head = 0;
    }

    @Override
    public String toString() {
        return "PartitionOffsets[commit " + committable() + ", in flight " + inFlight + ", rejected " + rejected
                + ", held " + size + "]";
    }
}
