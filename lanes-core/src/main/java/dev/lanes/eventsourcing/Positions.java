package dev.lanes.eventsourcing;

import dev.lanes.messaging.DomainEventStream;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The in-memory store's streams by global position, with no lock on an append: a position is claimed from a counter
 * and its slot written once, by the append that claimed it; the visible position is the highest below which every
 * slot is written, so a reader up to it never meets a gap.
 *
 * <p>Slots live in chunks of {@value #CHUNK} positions, listed in a directory that doubles when full; a chunk is made,
 * and the directory grown, under this object's monitor, once per {@value #CHUNK} positions. Thread-safe.
 */
final class Positions {
    private static final int CHUNK_BITS = 12;
    static final int CHUNK = 1 << CHUNK_BITS;

    private final AtomicLong claimed = new AtomicLong();
    private final AtomicLong visible = new AtomicLong();
    /** Chunk {@code c} holds positions {@code c * CHUNK + 1} to {@code (c + 1) * CHUNK}; replaced, never changed. */
    private volatile AtomicReferenceArray<AtomicReferenceArray<DomainEventStream>> chunks =
            new AtomicReferenceArray<>(16);

    /**
     * Claims the next position for {@code stream}, writes its slot and moves the visible position over every slot
     * written from there on. The caller holds its aggregate's monitor, so an aggregate's positions follow its versions.
     *
     * @return the position
     */
    long claim(DomainEventStream stream) {
        long position = claimed.incrementAndGet();
        chunk(position).set(offset(position), stream);
        advance();
        return position;
    }

    /** Returns once {@code position} is visible: the appends that claimed lower positions wrote their slots. */
    void awaitVisible(long position) {
        while (visible.get() < position) {
            advance();
            Thread.onSpinWait();
        }
    }

    /** Every position up to this one is readable with {@link #get}. */
    long visible() {
        return visible.get();
    }

    /** The stream at a visible position. */
    DomainEventStream get(long position) {
        return chunks.get(index(position)).get(offset(position));
    }

    /** Moves the visible position over every written slot that follows it. */
    private void advance() {
        long current = visible.get();
        while (written(current + 1)) {
            if (visible.compareAndSet(current, current + 1)) {
                current++;
            } else {
                current = visible.get();
            }
        }
    }

    private boolean written(long position) {
        AtomicReferenceArray<AtomicReferenceArray<DomainEventStream>> directory = chunks;
        int index = index(position);
        if (index >= directory.length()) {
            return false; // not claimed yet, or its chunk not made yet
        }
        AtomicReferenceArray<DomainEventStream> chunk = directory.get(index);
        return chunk != null && chunk.get(offset(position)) != null;
    }

    private AtomicReferenceArray<DomainEventStream> chunk(long position) {
        int index = index(position);
        AtomicReferenceArray<AtomicReferenceArray<DomainEventStream>> directory = chunks;
        if (index < directory.length()) {
            AtomicReferenceArray<DomainEventStream> chunk = directory.get(index);
            if (chunk != null) {
                return chunk;
            }
        }
        return madeChunk(index);
    }

    private synchronized AtomicReferenceArray<DomainEventStream> madeChunk(int index) {
        AtomicReferenceArray<AtomicReferenceArray<DomainEventStream>> directory = chunks;
        if (index >= directory.length()) {
            AtomicReferenceArray<AtomicReferenceArray<DomainEventStream>> grown =
                    new AtomicReferenceArray<>(Math.max(directory.length() * 2, index + 1));
            for (int i = 0; i < directory.length(); i++) {
                grown.set(i, directory.get(i));
            }
            chunks = grown;
            directory = grown;
        }
        AtomicReferenceArray<DomainEventStream> chunk = directory.get(index);
        if (chunk == null) {
            chunk = new AtomicReferenceArray<>(CHUNK);
            directory.set(index, chunk);
        }
        return chunk;
    }

    private static int index(long position) {
        return (int) ((position - 1) >>> CHUNK_BITS);
    }

    private static int offset(long position) {
        return (int) ((position - 1) & (CHUNK - 1));
    }
}
