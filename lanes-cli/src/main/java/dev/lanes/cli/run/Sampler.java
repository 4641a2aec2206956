package dev.lanes.cli.run;

import dev.lanes.cli.report.Timeline;
import dev.lanes.dispatch.DispatcherStats;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * Samples a run every interval on its own daemon thread: the settled count (throughput over time), live threads, and
 * per dispatcher its queued exchanges and deepest lane (the heat map), keeping each dispatcher's peaks. About twice a
 * second it also redraws the progress line: rate, interval p99, queued.
 */
public final class Sampler {
    private static final long PROGRESS_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final List<RecordingMetrics.Binding> bindings;
    private final LongSupplier settled;
    private final Latencies latencies;
    private final Progress progress;
    private final String unit;
    private final long startedAt = System.nanoTime();
    private final List<Timeline.Sample> samples = new ArrayList<>();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final ScheduledExecutorService executor;
    private int peakThreads;
    private long progressAt = startedAt;
    private long progressSettled;
    private volatile String label = "";
    private volatile @Nullable ScheduledFuture<?> task;

    private Sampler(
            List<RecordingMetrics.Binding> bindings,
            LongSupplier settled,
            Latencies latencies,
            Progress progress,
            String unit) {
        this.bindings = List.copyOf(bindings);
        this.settled = settled;
        this.latencies = latencies;
        this.progress = progress;
        this.unit = unit;
        this.executor = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "lanes-sampler");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * @param latencies the run's latencies, read interval by interval for the progress line's p99
     */
    public static Sampler start(
            Duration every,
            List<RecordingMetrics.Binding> bindings,
            LongSupplier settled,
            Latencies latencies,
            Progress progress,
            String unit) {
        Sampler sampler = new Sampler(bindings, settled, latencies, progress, unit);
        sampler.sampleSafely(); // the starting point of every series
        long nanos = every.toNanos();
        sampler.task = sampler.executor.scheduleAtFixedRate(sampler::sampleSafely, nanos, nanos, TimeUnit.NANOSECONDS);
        return sampler;
    }

    /** A word shown first on the progress line ("stopping", ...). */
    public void label(String label) {
        this.label = label;
    }

    /** Takes a last sample, stops the thread and returns what was seen. */
    public Timeline stop() {
        ScheduledFuture<?> sampling = task;
        if (sampling != null) {
            sampling.cancel(false);
        }
        executor.shutdown();
        try {
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            sample();
            progress.end();
            return new Timeline(
                    bindings.stream().map(RecordingMetrics.Binding::label).toList(), samples);
        }
    }

    public synchronized int peakThreads() {
        return peakThreads;
    }

    private synchronized void sampleSafely() {
        try {
            sample();
        } catch (RuntimeException e) {
            // a sample is never worth a failed run; the next one will try again
        }
    }

    private void sample() {
        long now = System.nanoTime();
        int[] queued = new int[bindings.size()];
        int[] deepest = new int[bindings.size()];
        long totalQueued = 0;
        for (int i = 0; i < bindings.size(); i++) {
            RecordingMetrics.Binding binding = bindings.get(i);
            DispatcherStats stats = binding.stats.get();
            binding.observe(stats);
            queued[i] = stats.queued();
            deepest[i] = stats.deepestLane();
            totalQueued += stats.queued();
        }
        int live = threads.getThreadCount();
        peakThreads = Math.max(peakThreads, live);
        long done = settled.getAsLong();
        samples.add(new Timeline.Sample((now - startedAt) / 1_000_000, done, live, queued, deepest));
        if (now - progressAt >= PROGRESS_EVERY_NANOS) {
            drawProgress(now, done, totalQueued);
        }
    }

    private void drawProgress(long now, long done, long totalQueued) {
        Histogram interval = latencies.takeInterval();
        double rate = (done - progressSettled) * 1e9 / Math.max(1, now - progressAt);
        progressAt = now;
        progressSettled = done;
        String p99 = interval.getTotalCount() == 0
                ? "-"
                : String.format(Locale.ROOT, "%,d us", interval.getValueAtPercentile(99) / 1000);
        progress.update(String.format(
                Locale.ROOT,
                "%s%6.1f s  %,10.0f %s/s  p99 %s  queued %,d  done %,d",
                label.isEmpty() ? "" : label + "  ",
                (now - startedAt) / 1e9,
                rate,
                unit,
                p99,
                totalQueued,
                done));
    }
}
