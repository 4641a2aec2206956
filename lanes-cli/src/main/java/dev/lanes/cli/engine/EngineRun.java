package dev.lanes.cli.engine;

import dev.lanes.cli.report.Report;
import dev.lanes.cli.report.RunInfo;
import dev.lanes.cli.report.Timeline;
import dev.lanes.cli.run.Latencies;
import dev.lanes.cli.run.Progress;
import dev.lanes.cli.run.RecordingMetrics;
import dev.lanes.cli.run.Sampler;
import dev.lanes.cli.run.Shutdowns;
import dev.lanes.cli.run.StopRequest;
import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.DispatcherStats;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.runtime.LanesRuntime;
import dev.lanes.runtime.ShutdownReport;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The lane engine's scenarios: one {@link AggregateDispatcher} per aggregate type, all on one {@link
 * AggregateSchedulerSupplier}, under a {@link LanesRuntime}; a pulled or paced source per type; a handler that
 * checks per-id order and then costs nothing, burns CPU, waits (hot id) or never completes (stuck lane). The run ends
 * when every message outside the stuck lane was settled, then the runtime stops gracefully under its deadline.
 */
public final class EngineRun {
    /**
     * A run whose settled count has not moved for this long is stopped and reported as stalled; as long as the demo
     * waits for an answer, because a loaded machine can freeze a healthy run for seconds.
     */
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    /** Beyond the shutdown deadline: the report. */
    private static final Duration STOP_MARGIN = Duration.ofMinutes(1);

    private static final Duration QUIET_PERIOD = Duration.ofMillis(50);
    private static final String THREAD_PREFIX = "bench";
    private static final int WORKERS_PER_TYPE = reactor.core.scheduler.Schedulers.DEFAULT_POOL_SIZE;

    public record Settings(
            Scenario scenario,
            LaneStrategy strategy,
            int parallelism,
            LaneSettings.Overflow overflow,
            int aggregates,
            int messages,
            int types,
            int rate,
            int cpuMicros,
            double hotShare,
            int slowEvery,
            Duration slowWait,
            Duration warmup,
            Duration shutdownTimeout,
            Duration sampleInterval,
            long seed) {}

    /**
     * How the load went.
     *
     * @param ending whether every message outside the stuck lane was settled, the load stalled, or a stop came first
     * @param nanos from the start of the load until it was settled (or stalled)
     * @param handledBeforeStop handled by the dispatchers before the stop began
     * @param schedulerThreads the supplier's worker threads at the end of the load
     */
    private record Loaded(Ending ending, long nanos, long handledBeforeStop, int schedulerThreads) {}

    /** How the wait for the load ended. */
    private enum Ending {
        /** Every message outside the stuck lane was settled. */
        SETTLED,
        /** Nothing was settled for {@link #STALL_NANOS}. */
        STALLED,
        /** A stop was requested (Ctrl-C). */
        STOPPED
    }

    private final Settings settings;
    private final Progress progress;
    private final Latencies latencies = new Latencies();
    private final RecordingMetrics metrics = new RecordingMetrics();
    private final AggregateSchedulerSupplier schedulers = AggregateSchedulers.perType(THREAD_PREFIX, WORKERS_PER_TYPE);
    private final RunInfo run = RunInfo.current(Clock.systemUTC());
    private final Traffic traffic;
    private final EngineProbe probe;
    private final @Nullable CpuBurner burner;
    private final @Nullable PacedSource paced;
    private final EngineFindings findings;
    /** Opens the pulled sources: the load starts when the sampler runs, not when the runtime started. */
    private final Sinks.Empty<Void> go = Sinks.empty();

    private final StopRequest stop;

    private EngineRun(Settings settings, Progress progress, StopRequest stop) {
        this.settings = settings;
        this.progress = progress;
        this.stop = stop;
        this.traffic = Traffic.generate(settings);
        boolean hotKey = settings.scenario() == Scenario.HOT_KEY;
        Latencies.Stage others = latencies.stage(hotKey ? "other ids" : "created to acknowledged");
        Latencies.Stage hot = hotKey ? latencies.stage("hot id") : others;
        this.probe = new EngineProbe(
                settings.types(), settings.aggregates(), settings.messages() - traffic.stuckRouted, others, hot);
        this.burner = settings.scenario() == Scenario.CPU ? CpuBurner.calibrate() : null;
        this.paced = settings.rate() > 0 ? new PacedSource(traffic, probe, settings.rate()) : null;
        this.findings = new EngineFindings(settings, traffic, probe, burner);
    }

    /**
     * Runs the scenario and returns its report.
     *
     * @param stop a request (Ctrl-C) ends the load early; the run then stops gracefully and reports as usual
     */
    public static Report run(Settings settings, Progress progress, StopRequest stop) {
        return new EngineRun(settings, progress, stop).run();
    }

    private Report run() {
        List<AggregateDispatcher<BenchMessage>> dispatchers = dispatchers();
        LanesRuntime runtime = runtime(dispatchers);
        announce();
        runtime.start().block(START_TIMEOUT);
        Sampler sampler = Sampler.start(
                settings.sampleInterval(), metrics.bindings(), probe::settled, latencies, progress, "msg");
        Loaded loaded = load(dispatchers);
        sampler.label("stopping");
        probe.stopping();
        ShutdownReport stopped = Shutdowns.await(runtime.shutdown(), settings.shutdownTimeout());
        Timeline timeline = sampler.stop();
        return report(dispatchers, loaded, stopped, timeline, sampler.peakThreads());
    }

    private List<AggregateDispatcher<BenchMessage>> dispatchers() {
        LaneSettings lanes = LaneSettings.DEFAULT
                .withStrategy(settings.strategy())
                .withParallelism(settings.parallelism())
                .withOverflow(settings.overflow());
        List<AggregateDispatcher<BenchMessage>> dispatchers = new ArrayList<>();
        for (int t = 0; t < settings.types(); t++) {
            dispatchers.add(AggregateDispatcher.<BenchMessage>builder("Bench", Traffic.type(t, settings.types()))
                    .source(source(t).doOnNext(probe::delivered))
                    .handler(this::handle)
                    .schedulers(schedulers)
                    .settings(lanes)
                    .metrics(metrics)
                    .build());
        }
        return dispatchers;
    }

    private Flux<BenchMessage> source(int type) {
        return paced != null ? paced.flux(type) : pulled(type);
    }

    private LanesRuntime runtime(List<AggregateDispatcher<BenchMessage>> dispatchers) {
        return new LanesRuntime(
                List.of(new BenchComponent(dispatchers, schedulers)),
                settings.shutdownTimeout(),
                Shutdowns.quietPeriod(QUIET_PERIOD, settings.shutdownTimeout()));
    }

    private void announce() {
        progress.phase(String.format(
                Locale.ROOT,
                "%s: %,d messages over %,d ids x %d type(s), %s lanes%s",
                settings.scenario().label(),
                settings.messages(),
                settings.aggregates(),
                settings.types(),
                settings.strategy(),
                settings.rate() > 0 ? String.format(Locale.ROOT, ", paced at %,d/s", settings.rate()) : ""));
    }

    /** Opens the sources and waits until every message outside the stuck lane was settled, or the run stalled. */
    private Loaded load(List<AggregateDispatcher<BenchMessage>> dispatchers) {
        long loadStart = System.nanoTime();
        probe.recordFrom(loadStart + settings.warmup().toNanos());
        openSources();
        stop.stopsWithin(settings.shutdownTimeout().plus(STOP_MARGIN));
        Ending ending = awaitOthers(loadStart + settings.warmup().toNanos());
        long nanos = (ending == Ending.SETTLED ? probe.othersDoneAt() : System.nanoTime()) - loadStart;
        long handled = dispatchers.stream().mapToLong(d -> d.stats().handled()).sum();
        Loaded loaded = new Loaded(ending, Math.max(1, nanos), handled, schedulerThreads());
        if (paced != null) {
            paced.stop();
        }
        return loaded;
    }

    private void openSources() {
        if (paced != null) {
            paced.start();
        } else {
            go.tryEmitEmpty();
        }
    }

    private Report report(
            List<AggregateDispatcher<BenchMessage>> dispatchers,
            Loaded loaded,
            @Nullable ShutdownReport stopped,
            Timeline timeline,
            int peakThreads) {
        List<Report.AggregateRow> rows =
                metrics.bindings().stream().map(RecordingMetrics.Binding::row).toList();
        List<DispatcherStats> stats =
                dispatchers.stream().map(AggregateDispatcher::stats).toList();
        Report.Load load = new Report.Load(
                settings.messages(),
                stats.stream().mapToLong(DispatcherStats::handled).sum(),
                loaded.nanos());
        Report.Counts counts = counts(stats);
        Report.LatencyReport latency = latency();
        return new Report(
                run,
                findings.setup(),
                load,
                latency,
                counts,
                rows,
                new Report.Threads(
                        peakThreads, ManagementFactory.getThreadMXBean().getThreadCount()),
                findings.invariants(load, counts, stopped, loaded.handledBeforeStop()),
                stopped,
                timeline,
                notes(loaded, latency));
    }

    private Report.LatencyReport latency() {
        List<Report.Latency> stages = latencies.summaries();
        boolean hotKey = settings.scenario() == Scenario.HOT_KEY;
        return new Report.LatencyReport(
                stages,
                Report.Latency.of("all", latencies.all()),
                hotKey ? stages.get(0) : null,
                hotKey ? stages.get(1) : null,
                Report.Distribution.of(latencies.all()));
    }

    private Report.Counts counts(List<DispatcherStats> stats) {
        Map<String, Long> outcomes = new LinkedHashMap<>();
        outcomes.put("delivered", probe.delivered());
        outcomes.put("acknowledged", probe.acknowledged());
        outcomes.put("handed back", probe.rejected());
        outcomes.put("left at the source", settings.messages() - probe.delivered());
        return new Report.Counts(
                outcomes,
                stats.stream().mapToLong(DispatcherStats::retried).sum(),
                stats.stream().mapToLong(DispatcherStats::parked).sum(),
                stats.stream().mapToLong(s -> s.rejected() + s.cancelled()).sum(),
                probe.violations(),
                probe.delivered() - probe.settled(),
                settings.scenario() == Scenario.STUCK_LANE ? traffic.stuckRouted : null);
    }

    private List<String> notes(Loaded loaded, Report.LatencyReport latency) {
        List<String> notes = new ArrayList<>();
        if (settings.scenario() == Scenario.MANY_TYPES || settings.types() > 1) {
            notes.add(findings.schedulerNote(loaded.schedulerThreads(), WORKERS_PER_TYPE));
        }
        if (!settings.warmup().isZero()) {
            notes.add(findings.warmupNote(latency.all().count() == 0));
        }
        if (loaded.ending() == Ending.STALLED) {
            notes.add(findings.stallNote(TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS)));
        }
        if (loaded.ending() == Ending.STOPPED) {
            notes.add("the load was cut short by " + stop.reason() + "; the runtime then stopped gracefully");
        }
        if (probe.handedBackDuringRun() > 0) {
            notes.add(findings.handedBackNote());
        }
        return notes;
    }

    /** Pulled as fast as the dispatcher asks, once the load starts (the runtime starts them earlier). */
    private Flux<BenchMessage> pulled(int type) {
        return go.asMono()
                .thenMany(Flux.range(0, traffic.count(type)))
                .map(i -> traffic.message(type, i, System.nanoTime(), probe));
    }

    private Mono<Void> handle(MessageExchange<BenchMessage> exchange) {
        BenchMessage message = exchange.message();
        probe.entered(message);
        if (message.stuckHead) {
            return Mono.never();
        }
        if (message.slow) {
            return Mono.delay(settings.slowWait()).then();
        }
        if (burner != null) {
            burner.burn(settings.cpuMicros());
        }
        return Mono.empty();
    }

    /**
     * Until every message outside the stuck lane was settled, the run stalled or a stop was requested. The dispatchers'
     * queue wait and handler timings recorded during the warm-up are dropped when it ends.
     */
    private Ending awaitOthers(long warmupEnd) {
        StallWatch stall = new StallWatch();
        boolean warm = settings.warmup().isZero();
        while (!probe.awaitOthers(TimeUnit.MILLISECONDS.toNanos(100))) {
            if (!warm && System.nanoTime() - warmupEnd >= 0) {
                metrics.resetTimings();
                warm = true;
            }
            if (stop.isRequested()) {
                progress.phase("stop requested by " + stop.reason() + "; stopping gracefully");
                return Ending.STOPPED;
            }
            if (stall.stalled(probe.settled())) {
                return Ending.STALLED;
            }
        }
        return Ending.SETTLED;
    }

    private static int schedulerThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith(THREAD_PREFIX + "-"))
                .count();
    }

    /** Whether a count stopped moving for {@link #STALL_NANOS}. */
    private static final class StallWatch {
        private long last = -1;
        private long movedAt = System.nanoTime();

        boolean stalled(long count) {
            long now = System.nanoTime();
            if (count != last) {
                last = count;
                movedAt = now;
                return false;
            }
            return now - movedAt > STALL_NANOS;
        }
    }
}
