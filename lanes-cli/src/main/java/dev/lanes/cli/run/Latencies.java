package dev.lanes.cli.run;

import dev.lanes.cli.report.Report;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * End-to-end latencies of a run by stage (a wait stage, or "other ids" / "hot id"), in nanoseconds, recorded from any
 * thread; all of them also feed one interval recorder for the progress line.
 */
public final class Latencies {
    private final List<Stage> stages = new ArrayList<>();
    private final Recorder interval = new Recorder(3);

    /** Adds a stage; stages are reported in the order they were added. */
    public Stage stage(String name) {
        Stage stage = new Stage(name);
        stages.add(stage);
        return stage;
    }

    /** The interval recorder every stage also feeds (nanoseconds), for the progress line. */
    public Recorder interval() {
        return interval;
    }

    /** Every stage merged. */
    public Histogram all() {
        Histogram all = new Histogram(3);
        stages.forEach(stage -> all.add(stage.histogram));
        return all;
    }

    public List<Report.Latency> summaries() {
        return stages.stream()
                .map(stage -> Report.Latency.of(stage.name, stage.histogram))
                .toList();
    }

    /** One named distribution. */
    public final class Stage {
        final String name;
        final Histogram histogram = new ConcurrentHistogram(3);

        private Stage(String name) {
            this.name = name;
        }

        public void record(long nanos) {
            long value = Math.max(0, nanos);
            histogram.recordValue(value);
            interval.recordValue(value);
        }
    }
}
