package dev.lanes.cli.report;

import java.util.List;

/**
 * What the sampler saw during a run: per sample the settled count, live threads, and per dispatcher (series) its
 * queued exchanges and deepest lane.
 *
 * @param series one per dispatcher, "name aggregate"
 * @param samples in time order
 */
public record Timeline(List<String> series, List<Sample> samples) {
    public static final Timeline EMPTY = new Timeline(List.of(), List.of());

    public Timeline {
        series = List.copyOf(series);
        samples = List.copyOf(samples);
    }

    /** One point in time; the per-series values are indexed like {@link Timeline#series}. Immutable. */
    public static final class Sample {
        private final long atMillis;
        private final long settled;
        private final int liveThreads;
        private final int[] queued;
        private final int[] deepest;

        /**
         * @param atMillis since the sampler started
         * @param settled messages settled so far
         */
        public Sample(long atMillis, long settled, int liveThreads, int[] queued, int[] deepest) {
            this.atMillis = atMillis;
            this.settled = settled;
            this.liveThreads = liveThreads;
            this.queued = queued.clone();
            this.deepest = deepest.clone();
        }

        public long atMillis() {
            return atMillis;
        }

        public long settled() {
            return settled;
        }

        public int liveThreads() {
            return liveThreads;
        }

        public int queued(int series) {
            return queued[series];
        }

        public int deepest(int series) {
            return deepest[series];
        }
    }
}
