package dev.lanes.cli.report;

import java.util.List;
import java.util.Objects;

/**
 * One traced request drawn as a waterfall: its spans as rows in the order they nest (each below its parent, siblings
 * by start), with where each starts and how long it takes, relative to the first.
 *
 * @param title what was traced ("one transfer, sampled from 12 traced")
 * @param traceId the trace's id, to find it in a collector
 * @param rows at least one, the root first
 */
public record Waterfall(String title, String traceId, List<Row> rows) {

    /** The kind of a row, for its colour. */
    public enum Kind {
        /** A send (the gateway's, or a saga's). */
        SEND,
        /** A command in its aggregate's lane. */
        LANE,
        /** A step of a command in its lane (load, decide, append, publish). */
        STEP,
        /** From the stream's publication to a processor's handling of it: the event bus. */
        BUS,
        /** A processor's handling of a stream (saga, projection, handler). */
        HANDLING
    }

    /**
     * @param label what the row is ("gateway: send Withdraw to bank.account/acc-7")
     * @param depth how deep it nests (0: the root)
     * @param startNanos from the root's start
     * @param durationNanos how long it took
     */
    public record Row(String label, Kind kind, int depth, long startNanos, long durationNanos) {
        public Row {
            Objects.requireNonNull(label, "label");
            Objects.requireNonNull(kind, "kind");
            if (depth < 0 || startNanos < 0 || durationNanos < 0) {
                throw new IllegalArgumentException("a waterfall row needs depth, start and duration >= 0: " + label
                        + " depth " + depth + ", start " + startNanos + " ns, duration " + durationNanos + " ns");
            }
        }

        public long endNanos() {
            return startNanos + durationNanos;
        }
    }

    public Waterfall {
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(traceId, "traceId");
        rows = List.copyOf(rows);
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("a waterfall needs at least one row: trace " + traceId);
        }
    }

    /** From the root's start to the last row's end. */
    public long totalNanos() {
        return rows.stream().mapToLong(Row::endNanos).max().orElse(0);
    }
}
