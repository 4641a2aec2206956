package dev.lanes.kafka;

import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The event records each command published that Kafka has not acknowledged yet, by the command's message id. A
 * command's lane goes on once the producer took its events (in their partition's order); its record is settled, and so
 * may be committed, only once they are acknowledged ({@link #afterAcks}). A crash in between leaves the command
 * uncommitted: its next owner reads it again, finds its request id in the store and publishes what it stored.
 *
 * <p>Thread-safe: lanes call {@link #sent} and {@link #afterAcks}, the producer's thread {@link #acked}. What waited
 * runs on the thread that ends the wait, outside any lock; it must not block.
 */
final class PendingAcks {
    private final ConcurrentHashMap<String, Waiting> byCommand = new ConcurrentHashMap<>();

    /** Records of one command still unacknowledged, and what runs once none is left. */
    private static final class Waiting {
        int records;

        @Nullable
        Runnable then;
    }

    /** A record of the command {@code commandId} went to the producer; call before the producer may acknowledge it. */
    void sent(String commandId) {
        byCommand.compute(commandId, (id, waiting) -> {
            Waiting current = waiting == null ? new Waiting() : waiting;
            current.records++;
            return current;
        });
    }

    /** Kafka acknowledged (or failed) one record of {@code commandId}; the last one runs what waited for it. */
    void acked(String commandId) {
        Runnable[] due = new Runnable[1];
        byCommand.computeIfPresent(commandId, (id, waiting) -> {
            if (--waiting.records > 0) {
                return waiting;
            }
            due[0] = waiting.then;
            return null;
        });
        if (due[0] != null) {
            due[0].run();
        }
    }

    /** Runs {@code settle} now when nothing of {@code commandId} awaits its acknowledgement, else after the last one. */
    void afterAcks(String commandId, Runnable settle) {
        boolean[] waits = new boolean[1];
        byCommand.computeIfPresent(commandId, (id, waiting) -> {
            Runnable before = waiting.then;
            waiting.then = before == null
                    ? settle
                    : () -> {
                        before.run();
                        settle.run();
                    };
            waits[0] = true;
            return waiting;
        });
        if (!waits[0]) {
            settle.run();
        }
    }

    /** Commands with records awaiting their acknowledgement. */
    int waiting() {
        return byCommand.size();
    }

    @Override
    public String toString() {
        return "PendingAcks[" + byCommand.size() + " command(s) awaiting acknowledgements]";
    }
}
