package dev.lanes.cli.run;

import dev.lanes.cli.report.Report;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.HdrHistogram.Histogram;

/**
 * End-to-end latencies of a run by stage (a wait stage, or "other ids" / "hot id"), in nanoseconds, recorded from any
 * thread without contention (see {@link StripedRecorder}); the progress line reads them merged, interval by interval.
 */
public final class Latencies {
    private final List<Stage> stages = new CopyOnWriteArrayList<>();

    /** Adds a stage; stages are reported in the order they were added. */
    public Stage stage(String name) {
        Stage stage = new Stage(name);
        stages.add(stage);
        return stage;
    }

    /** Every stage merged, since the start. */
    public Histogram all() {
        Histogram all = new Histogram(3);
        stages.forEach(stage -> all.add(stage.recorder.total()));
        return all;
    }

    /** Every stage merged, since the previous call: for the progress line. */
    public Histogram takeInterval() {
        Histogram interval = new Histogram(3);
        stages.forEach(stage -> interval.add(stage.recorder.takeInterval()));
        return interval;
    }

    public List<Report.Latency> summaries() {
        return stages.stream()
                .map(stage -> Report.Latency.of(stage.name, stage.recorder.total()))
                .toList();
    }

    /** One named distribution. */
    public static final class Stage {
        final String name;
        final StripedRecorder recorder = new StripedRecorder();

        private Stage(String name) {
            this.name = name;
        }

        public void record(long nanos) {
            recorder.record(nanos);
        }
    }
}
