package dev.lanes.cli;

import java.util.List;

/**
 * What the sampler saw during a run: per sample the settled count, live threads, and per dispatcher (series) its
 * queued exchanges and deepest lane.
 */
final class Timeline {
    static final Timeline EMPTY = new Timeline(List.of(), List.of());

    /** One dispatcher per series, "name aggregate". */
    final List<String> series;

    final List<Sample> samples;

    Timeline(List<String> series, List<Sample> samples) {
        this.series = List.copyOf(series);
        this.samples = List.copyOf(samples);
    }

    /** One point in time; arrays are indexed like {@link Timeline#series}. */
    static final class Sample {
        final long atMillis;
        final long settled;
        final int liveThreads;
        private final int[] queued;
        private final int[] deepest;

        Sample(long atMillis, long settled, int liveThreads, int[] queued, int[] deepest) {
            this.atMillis = atMillis;
            this.settled = settled;
            this.liveThreads = liveThreads;
            this.queued = queued.clone();
            this.deepest = deepest.clone();
        }

        int queued(int series) {
            return queued[series];
        }

        int deepest(int series) {
            return deepest[series];
        }
    }
}
