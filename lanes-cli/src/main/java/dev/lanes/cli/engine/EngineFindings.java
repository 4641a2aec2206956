package dev.lanes.cli.engine;

import dev.lanes.cli.report.Formats;
import dev.lanes.cli.report.Report;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.runtime.ShutdownReport;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** What an engine run says about itself: its setup, its invariants, and its notes. */
final class EngineFindings {
    private final EngineRun.Settings settings;
    private final Traffic traffic;
    private final EngineProbe probe;
    private final @Nullable CpuBurner burner;

    EngineFindings(EngineRun.Settings settings, Traffic traffic, EngineProbe probe, @Nullable CpuBurner burner) {
        this.settings = settings;
        this.traffic = traffic;
        this.probe = probe;
        this.burner = burner;
    }

    /** The invariants of the run: order and loss always; then the stuck lane's isolation, or all handled and drained. */
    List<Report.Invariant> invariants(
            Report.Load load, Report.Counts counts, @Nullable ShutdownReport stopped, long handledBeforeStop) {
        List<Report.Invariant> invariants = new ArrayList<>();
        invariants.add(perIdOrder());
        invariants.add(nothingLost(counts));
        if (settings.scenario() == Scenario.STUCK_LANE) {
            invariants.add(othersHandled(handledBeforeStop));
            invariants.add(stopCutOnlyTheStuckLane(stopped));
        } else {
            invariants.add(allHandled(load, counts));
            invariants.add(gracefulStop(stopped));
        }
        return invariants;
    }

    private Report.Invariant perIdOrder() {
        String detail = String.format(
                Locale.ROOT,
                "each id's messages entered its handler in the order they were sent (%,d out of order)",
                probe.violations());
        return new Report.Invariant("per-id order", probe.violations() == 0, detail);
    }

    private Report.Invariant nothingLost(Report.Counts counts) {
        String detail = String.format(
                Locale.ROOT,
                "every delivered message was acknowledged or handed back: %,d delivered, %,d acknowledged,"
                        + " %,d handed back",
                probe.delivered(),
                probe.acknowledged(),
                probe.rejected());
        return new Report.Invariant("nothing lost", counts.lost() == 0, detail);
    }

    private Report.Invariant othersHandled(long handledBeforeStop) {
        long others = settings.messages() - traffic.stuckRouted;
        String detail = String.format(
                Locale.ROOT,
                "%,d of the %,d messages outside the stuck lane handled while %s was stuck (%,d in its lane)",
                handledBeforeStop,
                others,
                traffic.stuckId(),
                traffic.stuckRouted);
        return new Report.Invariant("others handled while a lane was stuck", handledBeforeStop == others, detail);
    }

    private Report.Invariant stopCutOnlyTheStuckLane(@Nullable ShutdownReport stopped) {
        boolean cutAtDeadline = stopped != null && stopped.forced() && probe.cutStuck() > 0 && probe.cutOthers() == 0;
        String detail = String.format(
                Locale.ROOT,
                "the graceful stop %s; it handed back %,d message(s) of the stuck lane and %,d other(s)",
                stopped == null ? "did not end" : stopped.forced() ? "was forced by its deadline" : "drained",
                probe.cutStuck(),
                probe.cutOthers());
        return new Report.Invariant("stop cut only the stuck lane", cutAtDeadline, detail);
    }

    private Report.Invariant allHandled(Report.Load load, Report.Counts counts) {
        String detail = String.format(
                Locale.ROOT,
                "%,d of %,d handled, %,d handed back",
                load.handled(),
                settings.messages(),
                counts.rejected());
        boolean passed = load.handled() == settings.messages() && counts.rejected() == 0;
        return new Report.Invariant("all handled", passed, detail);
    }

    private static Report.Invariant gracefulStop(@Nullable ShutdownReport stopped) {
        String detail = stopped == null
                ? "the stop did not end"
                : String.format(
                        Locale.ROOT, "drained in %,d ms", stopped.duration().toMillis());
        return new Report.Invariant("graceful stop", stopped != null && stopped.graceful(), detail);
    }

    /** Why the run stopped waiting: nothing moved any more. */
    String stallNote(long stallSeconds) {
        String note = String.format(
                Locale.ROOT,
                "stalled: nothing was settled for %d s; %,d message(s) were never taken from the source",
                stallSeconds,
                settings.messages() - probe.delivered());
        if (settings.scenario() == Scenario.STUCK_LANE && settings.overflow() == LaneSettings.Overflow.PAUSE) {
            note += "; under PAUSE the stuck lane may hold the dispatcher's whole budget (maxQueued), which pauses the"
                    + " intake (try --overflow reject)";
        }
        return note;
    }

    String schedulerNote(int schedulerThreads, int parallelism) {
        return String.format(
                Locale.ROOT,
                "%d scheduler worker threads for %d aggregate types (one scheduler of %d per type)",
                schedulerThreads,
                settings.types(),
                parallelism);
    }

    String warmupNote(boolean nothingRecorded) {
        return String.format(
                Locale.ROOT,
                "warm-up: the latencies of the %,d message(s) created in the first %s are left out (JIT, first"
                        + " lanes); the aggregates' timings start after it%s",
                probe.warmupMessages(),
                Formats.duration(settings.warmup()),
                nothingRecorded ? "; the run ended within it: use more --messages or less --warmup" : "");
    }

    String handedBackNote() {
        return String.format(
                Locale.ROOT,
                "%,d message(s) were handed back to the source during the run: their lane was full (LANE_FULL,"
                        + " overflow %s)",
                probe.handedBackDuringRun(),
                settings.overflow());
    }

    /** Title, setup lines and options. */
    Report.Setup setup() {
        String title = "Lanes bench: " + settings.scenario().label() + " ("
                + settings.scenario().description() + ")";
        List<String> lines = List.of(loadLine(), handlerLine());
        return new Report.Setup(
                settings.scenario().label(), Formats.lower(settings.strategy()), title, "messages", lines, options());
    }

    private String loadLine() {
        return String.format(
                Locale.ROOT,
                "%,d messages over %,d ids per type x %d type(s); %s lanes (parallelism %d), overflow %s; %s source",
                settings.messages(),
                settings.aggregates(),
                settings.types(),
                settings.strategy(),
                settings.parallelism(),
                settings.overflow(),
                settings.rate() > 0
                        ? String.format(
                                Locale.ROOT, "open-loop paced at %,d/s (latency from the due time)", settings.rate())
                        : "pulled (latency from creation, when the dispatcher asked for it)");
    }

    private String handlerLine() {
        return switch (settings.scenario()) {
            case CPU ->
                String.format(
                        Locale.ROOT,
                        "handler burns %d us of CPU (measured %.1f us per call)",
                        settings.cpuMicros(),
                        burner == null ? 0 : burner.measureMicros(settings.cpuMicros()));
            case HOT_KEY ->
                String.format(
                        Locale.ROOT,
                        "hot id %s gets %.0f%% of the messages; every %d-th of them waits %s (Mono.delay)",
                        traffic.hotId(0).id(),
                        settings.hotShare() * 100,
                        settings.slowEvery(),
                        Formats.duration(settings.slowWait()));
            case STUCK_LANE ->
                String.format(
                        Locale.ROOT,
                        "the first message of %s never completes: %,d message(s) in its lane (%s)",
                        traffic.stuckId(),
                        traffic.stuckRouted,
                        settings.strategy() == LaneStrategy.KEYED ? "that id" : "its hash group");
            case MANY_TYPES ->
                String.format(Locale.ROOT, "%d aggregate types share one AggregateSchedulerSupplier", settings.types());
            default -> "handler: order check, then Mono.empty()";
        };
    }

    private Map<String, String> options() {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("aggregates", Integer.toString(settings.aggregates()));
        options.put("messages", Integer.toString(settings.messages()));
        options.put("types", Integer.toString(settings.types()));
        options.put("rate", Integer.toString(settings.rate()));
        options.put("parallelism", Integer.toString(settings.parallelism()));
        options.put("overflow", Formats.lower(settings.overflow()));
        options.put("shutdownTimeout", Formats.duration(settings.shutdownTimeout()));
        options.put("seed", Long.toString(settings.seed()));
        options.put("warmup", Formats.duration(settings.warmup()));
        if (settings.scenario() == Scenario.CPU) {
            options.put("cpuMicros", Integer.toString(settings.cpuMicros()));
        }
        if (settings.scenario() == Scenario.HOT_KEY) {
            options.put("hotShare", Double.toString(settings.hotShare()));
        }
        options.put("scenario", settings.scenario().label());
        options.put("strategy", Formats.lower(settings.strategy()));
        return options;
    }
}
