package dev.lanes.eventsourcing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The in-memory store's global order without a lock: writers claim positions at once while a reader follows the
 * visible position; the reader never meets an unwritten slot below it, never sees it go back, and in the end every
 * claimed position is visible and holds the stream that claimed it, across many chunks (the directory grows twice).
 */
class PositionsTest {
    private static final int WRITERS = 8;
    private static final int PER_WRITER = 10 * Positions.CHUNK; // 80 chunks in all: the directory of 16 grows twice

    @Test
    void aFollowerNeverMeetsAGapAndEveryClaimEndsVisibleWithItsOwnStream() throws InterruptedException {
        Positions positions = new Positions();
        List<DomainEventStream> streams = new ArrayList<>();
        for (int i = 0; i < WRITERS; i++) {
            streams.add(stream("writer-" + i));
        }
        ConcurrentHashMap<Long, DomainEventStream> claimedBy = new ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean writing = new AtomicBoolean(true);
        AtomicReference<String> broken = new AtomicReference<>();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            DomainEventStream mine = streams.get(w);
            Thread writer = new Thread(() -> {
                await(start);
                for (int i = 0; i < PER_WRITER; i++) {
                    long position = positions.claim(mine);
                    claimedBy.put(position, mine);
                    positions.awaitVisible(position);
                    if (positions.visible() < position) {
                        broken.compareAndSet(null, "awaitVisible(" + position + ") returned below it");
                    }
                }
            });
            writers.add(writer);
            writer.start();
        }
        Thread follower = new Thread(() -> {
            await(start);
            long read = 0;
            while (writing.get() || read < positions.visible()) {
                long visible = positions.visible();
                if (visible < read) {
                    broken.compareAndSet(null, "visible went back from " + read + " to " + visible);
                }
                for (long position = read + 1; position <= visible; position++) {
                    if (positions.get(position) == null) {
                        broken.compareAndSet(null, "position " + position + " unwritten below visible " + visible);
                    }
                }
                read = Math.max(read, visible);
            }
        });
        follower.start();

        start.countDown();
        for (Thread writer : writers) {
            writer.join(TimeUnit.MINUTES.toMillis(1));
        }
        writing.set(false);
        follower.join(TimeUnit.MINUTES.toMillis(1));

        assertThat(broken.get()).isNull();
        long total = (long) WRITERS * PER_WRITER;
        assertThat(positions.visible()).isEqualTo(total);
        assertThat(claimedBy).hasSize((int) total);
        for (long position = 1; position <= total; position++) {
            assertThat(positions.get(position)).isSameAs(claimedBy.get(position));
        }
    }

    private static void await(CountDownLatch start) {
        try {
            start.await();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static DomainEventStream stream(String id) {
        AggregateId aggregate = AggregateId.of(NamedAggregate.of("test", "positions"), id);
        return DomainEventStream.of(CommandMessage.of(aggregate, "claim"), 1, List.of("claimed"));
    }
}
