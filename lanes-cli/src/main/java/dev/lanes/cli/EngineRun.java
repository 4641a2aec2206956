package dev.lanes.cli;

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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
final class EngineRun {
    /** A run whose settled count has not moved for this long is stopped and reported as stalled. */
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(5);

    private static final Duration QUIET_PERIOD = Duration.ofMillis(50);
    private static final String THREAD_PREFIX = "bench";

    record Settings(
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

    private final Settings settings;
    private final Progress progress;
    private final Latencies latencies = new Latencies();
    private final RecordingMetrics metrics = new RecordingMetrics();
    private final Traffic traffic;
    private final EngineProbe probe;
    private final @Nullable CpuBurner burner;
    /** Opens the pulled sources: the load starts when the sampler runs, not when the runtime started. */
    private final Sinks.Empty<Void> go = Sinks.empty();

    private EngineRun(Settings settings, Progress progress) {
        this.settings = settings;
        this.progress = progress;
        this.traffic = Traffic.generate(settings);
        boolean hotKey = settings.scenario() == Scenario.HOT_KEY;
        Latencies.Stage others = latencies.stage(hotKey ? "other ids" : "created to acknowledged");
        Latencies.Stage hot = hotKey ? latencies.stage("hot id") : others;
        this.probe = new EngineProbe(
                settings.types(), settings.aggregates(), settings.messages() - traffic.stuckRouted, others, hot);
        this.burner = settings.scenario() == Scenario.CPU ? CpuBurner.calibrate() : null;
    }

    static Report run(Settings settings, Progress progress) {
        return new EngineRun(settings, progress).run();
    }

    private Report run() {
        Report report =
                new Report(settings.scenario().label, settings.strategy().name().toLowerCase(Locale.ROOT));
        EngineFindings findings = new EngineFindings(settings, traffic, probe, burner);
        findings.describe(report);
        int workersPerType = reactor.core.scheduler.Schedulers.DEFAULT_POOL_SIZE;
        AggregateSchedulerSupplier schedulers = AggregateSchedulers.perType(THREAD_PREFIX, workersPerType);
        PacedSource paced = settings.rate() > 0 ? new PacedSource(traffic, probe, settings.rate()) : null;
        List<AggregateDispatcher<BenchMessage>> dispatchers = new ArrayList<>();
        LaneSettings lanes = LaneSettings.DEFAULT
                .withStrategy(settings.strategy())
                .withParallelism(settings.parallelism())
                .withOverflow(settings.overflow());
        for (int t = 0; t < settings.types(); t++) {
            Flux<BenchMessage> source = paced != null ? paced.flux(t) : pulled(t);
            dispatchers.add(AggregateDispatcher.<BenchMessage>builder("Bench", Traffic.type(t, settings.types()))
                    .source(source.doOnNext(probe::delivered))
                    .handler(this::handle)
                    .schedulers(schedulers)
                    .settings(lanes)
                    .metrics(metrics)
                    .build());
        }
        LanesRuntime runtime = new LanesRuntime(
                List.of(new BenchComponent(dispatchers, schedulers)),
                settings.shutdownTimeout(),
                BankWiring.quietPeriod(QUIET_PERIOD, settings.shutdownTimeout()));

        progress.phase(String.format(
                Locale.ROOT,
                "%s: %,d messages over %,d ids x %d type(s), %s lanes%s",
                settings.scenario().label,
                settings.messages(),
                settings.aggregates(),
                settings.types(),
                settings.strategy(),
                settings.rate() > 0 ? String.format(Locale.ROOT, ", paced at %,d/s", settings.rate()) : ""));
        runtime.start().block(Duration.ofSeconds(30));
        Sampler sampler = Sampler.start(
                settings.sampleInterval(), metrics.bindings(), probe::settled, latencies.interval, progress, "msg");
        long loadStart = System.nanoTime();
        probe.recordFrom(loadStart + settings.warmup().toNanos());
        if (paced != null) {
            paced.start();
        } else {
            go.tryEmitEmpty();
        }
        boolean stalled = !awaitOthers(loadStart + settings.warmup().toNanos());
        long loadNanos = (stalled ? System.nanoTime() : probe.othersDoneAt()) - loadStart;
        long handledBeforeStop =
                dispatchers.stream().mapToLong(d -> d.stats().handled()).sum();
        int schedulerThreads = schedulerThreads();
        if (paced != null) {
            paced.stop();
        }
        sampler.label("stopping");
        probe.stopping();
        ShutdownReport stopped = Shutdowns.await(runtime.shutdown(), settings.shutdownTimeout());
        Timeline timeline = sampler.stop();

        report.messages = settings.messages();
        report.loadNanos = Math.max(1, loadNanos);
        report.stages.addAll(latencies.summaries());
        report.latency = Report.Latency.of("all", latencies.all());
        report.latencyHistogram = latencies.all();
        if (settings.scenario() == Scenario.HOT_KEY) {
            report.otherIds = report.stages.get(0);
            report.hotId = report.stages.get(1);
        }
        metrics.bindings().forEach(binding -> report.aggregates.add(binding.row()));
        List<DispatcherStats> stats =
                dispatchers.stream().map(AggregateDispatcher::stats).toList();
        report.handled = stats.stream().mapToLong(DispatcherStats::handled).sum();
        report.retried = stats.stream().mapToLong(DispatcherStats::retried).sum();
        report.parked = stats.stream().mapToLong(DispatcherStats::parked).sum();
        long cut = stats.stream().mapToLong(s -> s.rejected() + s.cancelled()).sum();
        report.rejected = cut;
        report.orderingViolations = probe.violations();
        report.lost = probe.delivered() - probe.settled();
        if (settings.scenario() == Scenario.STUCK_LANE) {
            report.stuckLaneMessages = traffic.stuckRouted;
        }
        report.outcomes.put("delivered", probe.delivered());
        report.outcomes.put("acknowledged", probe.acknowledged());
        report.outcomes.put("handed back", probe.rejected());
        report.outcomes.put("left at the source", settings.messages() - probe.delivered());
        report.liveThreadsPeak = sampler.peakThreads();
        report.liveThreadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
        report.shutdown = stopped;
        report.timeline = timeline;
        if (settings.scenario() == Scenario.MANY_TYPES || settings.types() > 1) {
            report.notes.add(String.format(
                    Locale.ROOT,
                    "%d scheduler worker threads for %d aggregate types (one scheduler of %d per type)",
                    schedulerThreads,
                    settings.types(),
                    workersPerType));
        }
        if (!settings.warmup().isZero()) {
            report.notes.add(String.format(
                    Locale.ROOT,
                    "warm-up: the latencies of the %,d message(s) created in the first %s are left out (JIT, first"
                            + " lanes); the aggregates' timings start after it%s",
                    probe.warmupMessages(),
                    BankRun.describe(settings.warmup()),
                    report.latency.count() == 0
                            ? "; the run ended within it: use more --messages or less --warmup"
                            : ""));
        }
        if (stalled) {
            report.notes.add(findings.stallNote(TimeUnit.NANOSECONDS.toSeconds(STALL_NANOS)));
        }
        if (probe.handedBackDuringRun() > 0) {
            report.notes.add(String.format(
                    Locale.ROOT,
                    "%,d message(s) were handed back to the source during the run: their lane was full (LANE_FULL,"
                            + " overflow %s)",
                    probe.handedBackDuringRun(),
                    settings.overflow()));
        }
        findings.check(report, stopped, handledBeforeStop, cut);
        return report;
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

    /** True when every message outside the stuck lane was settled; false when the run stalled. */
    /**
     * True when every message outside the stuck lane was settled; false when the run stalled. The dispatchers' queue
     * wait and handler timings recorded during the warm-up are dropped when it ends.
     */
    private boolean awaitOthers(long warmupEnd) {
        long lastSettled = -1;
        long lastMoved = System.nanoTime();
        boolean warm = settings.warmup().isZero();
        try {
            while (!probe.awaitOthers(TimeUnit.MILLISECONDS.toNanos(100))) {
                long settled = probe.settled();
                long now = System.nanoTime();
                if (!warm && now >= warmupEnd) {
                    metrics.resetTimings();
                    warm = true;
                }
                if (settled != lastSettled) {
                    lastSettled = settled;
                    lastMoved = now;
                } else if (now - lastMoved > STALL_NANOS) {
                    return false;
                }
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static int schedulerThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith(THREAD_PREFIX + "-"))
                .count();
    }
}
