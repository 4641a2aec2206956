package dev.lanes.cli;

import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.runtime.ShutdownReport;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** What an engine run says about itself: its setup lines, its invariants, and notes on a stall. */
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

    /** The invariants of the run. */
    void check(Report report, @Nullable ShutdownReport stopped, long handledBeforeStop, long cut) {
        long stuck = traffic.stuckRouted;
        report.check(
                "per-id order",
                probe.violations() == 0,
                String.format(
                        Locale.ROOT,
                        "each id's messages entered its handler in the order they were sent (%,d out of order)",
                        probe.violations()));
        report.check(
                "nothing lost",
                report.lost == 0,
                String.format(
                        Locale.ROOT,
                        "every delivered message was acknowledged or handed back: %,d delivered, %,d acknowledged,"
                                + " %,d handed back",
                        probe.delivered(),
                        probe.acknowledged(),
                        probe.rejected()));
        if (settings.scenario() == Scenario.STUCK_LANE) {
            report.check(
                    "others handled while a lane was stuck",
                    handledBeforeStop == settings.messages() - stuck,
                    String.format(
                            Locale.ROOT,
                            "%,d of the %,d messages outside the stuck lane handled while %s was stuck (%,d in its"
                                    + " lane)",
                            handledBeforeStop,
                            settings.messages() - stuck,
                            traffic.stuckId(),
                            stuck));
            boolean cutAtDeadline =
                    stopped != null && stopped.forced() && probe.cutStuck() > 0 && probe.cutOthers() == 0;
            report.check(
                    "stop cut only the stuck lane",
                    cutAtDeadline,
                    String.format(
                            Locale.ROOT,
                            "the graceful stop %s; it handed back %,d message(s) of the stuck lane and %,d other(s)",
                            stopped == null
                                    ? "did not end"
                                    : stopped.forced() ? "was forced by its deadline" : "drained",
                            probe.cutStuck(),
                            probe.cutOthers()));
        } else {
            report.check(
                    "all handled",
                    report.handled == settings.messages() && cut == 0,
                    String.format(
                            Locale.ROOT,
                            "%,d of %,d handled, %,d handed back",
                            report.handled,
                            settings.messages(),
                            cut));
            report.check(
                    "graceful stop",
                    stopped != null && stopped.graceful(),
                    stopped == null
                            ? "the stop did not end"
                            : String.format(
                                    Locale.ROOT,
                                    "drained in %,d ms",
                                    stopped.duration().toMillis()));
        }
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

    /** Title, setup lines and options. */
    void describe(Report report) {
        report.title = "Lanes bench: " + settings.scenario().label + " (" + settings.scenario().description + ")";
        report.setup.add(String.format(
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
                        : "pulled (latency from creation, when the dispatcher asked for it)"));
        switch (settings.scenario()) {
            case CPU ->
                report.setup.add(String.format(
                        Locale.ROOT,
                        "handler burns %d us of CPU (measured %.1f us per call)",
                        settings.cpuMicros(),
                        burner == null ? 0 : burner.measureMicros(settings.cpuMicros())));
            case HOT_KEY ->
                report.setup.add(String.format(
                        Locale.ROOT,
                        "hot id %s gets %.0f%% of the messages; every %d-th of them waits %s (Mono.delay)",
                        traffic.hotId(0).id(),
                        settings.hotShare() * 100,
                        settings.slowEvery(),
                        BankRun.describe(settings.slowWait())));
            case STUCK_LANE ->
                report.setup.add(String.format(
                        Locale.ROOT,
                        "the first message of %s never completes: %,d message(s) in its lane (%s)",
                        traffic.stuckId(),
                        traffic.stuckRouted,
                        settings.strategy() == LaneStrategy.KEYED ? "that id" : "its hash group"));
            case MANY_TYPES ->
                report.setup.add(String.format(
                        Locale.ROOT, "%d aggregate types share one AggregateSchedulerSupplier", settings.types()));
            default -> report.setup.add("handler: order check, then Mono.empty()");
        }
        report.options.put("aggregates", Integer.toString(settings.aggregates()));
        report.options.put("messages", Integer.toString(settings.messages()));
        report.options.put("types", Integer.toString(settings.types()));
        report.options.put("rate", Integer.toString(settings.rate()));
        report.options.put("parallelism", Integer.toString(settings.parallelism()));
        report.options.put("overflow", settings.overflow().name().toLowerCase(Locale.ROOT));
        report.options.put("shutdownTimeout", BankRun.describe(settings.shutdownTimeout()));
        report.options.put("seed", Long.toString(settings.seed()));
        report.options.put("warmup", BankRun.describe(settings.warmup()));
        if (settings.scenario() == Scenario.CPU) {
            report.options.put("cpuMicros", Integer.toString(settings.cpuMicros()));
        }
        if (settings.scenario() == Scenario.HOT_KEY) {
            report.options.put("hotShare", Double.toString(settings.hotShare()));
        }
    }
}
