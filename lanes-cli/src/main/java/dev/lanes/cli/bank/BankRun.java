package dev.lanes.cli.bank;

import dev.lanes.cli.report.Formats;
import dev.lanes.cli.report.Report;
import dev.lanes.cli.report.RunInfo;
import dev.lanes.cli.report.Timeline;
import dev.lanes.cli.run.Latencies;
import dev.lanes.cli.run.Progress;
import dev.lanes.cli.run.RecordingMetrics;
import dev.lanes.cli.run.Sampler;
import dev.lanes.cli.run.Shutdowns;
import dev.lanes.cli.run.StopRequest;
import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.examples.bank.AccountCommand.CloseAccount;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.Bank;
import dev.lanes.runtime.ShutdownReport;
import dev.lanes.tracing.MessageTracing;
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

/**
 * Runs the bank end to end: start the runtime, open the accounts, let the clients send for a duration or a count,
 * then stop gracefully ({@code LanesRuntime.shutdown()}) with their last commands and the saga's still in flight, and
 * audit the store. Used by {@code demo} and by {@code bench --scenario command} (command side only, deposits only).
 */
public final class BankRun {
    static final long OPENING_BALANCE = 10_000;
    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(60);
    /** A run whose clients got no answer at all for this long is stopped and reported. */
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** Beyond twice the shutdown deadline (clients, then the runtime): the audit and the report. */
    private static final Duration STOP_MARGIN = Duration.ofMinutes(2);

    /** What the clients send and what else runs. */
    public enum Workload {
        /** The bank end to end: mixed commands, the event side (projection, saga, snapshotter, order audit). */
        DEMO("demo", BankClient.Mix.DEMO, true),
        /** The command path only: deposits, no event processors. */
        DEPOSITS("command", BankClient.Mix.DEPOSITS, false);

        final String scenario;
        final BankClient.Mix mix;
        final boolean eventSide;

        Workload(String scenario, BankClient.Mix mix, boolean eventSide) {
            this.scenario = scenario;
            this.mix = mix;
            this.eventSide = eventSide;
        }
    }

    /**
     * @param warmup how long the clients send before the load that counts: their commands are stored and audited, but
     *     counted in no throughput and no latency (zero: none)
     * @param duration how long the clients send after the warm-up, or null to send {@code commands} in all
     */
    public record Settings(
            Workload workload,
            LaneStrategy strategy,
            int accounts,
            int clients,
            Duration warmup,
            @Nullable Duration duration,
            long commands,
            Duration shutdownTimeout,
            Duration sampleInterval,
            long seed,
            Stores stores,
            Buses buses,
            EventFlow eventFlow) {

        String amount() {
            return duration == null
                    ? String.format(Locale.ROOT, "%,d commands", commands)
                    : "for " + Formats.duration(duration);
        }
    }

    /** How the load ended: its length after the warm-up, the shutdown report, the sampled timeline. */
    private record Stopped(
            long loadNanos, long warmupNanos, @Nullable ShutdownReport shutdown, Timeline timeline, int peakThreads) {}

    private final Settings settings;
    private final Progress progress;
    private final BankWiring bank;
    private final Ledger ledger = new Ledger();
    private final Latencies latencies = new Latencies();
    private final RunInfo run = RunInfo.current(Clock.systemUTC());
    private final StopRequest stop;
    /** Why the consumer groups had not drained when the stop began (Kafka), or null. Written and read by the run. */
    private @Nullable String undrained;

    private BankRun(Settings settings, Progress progress, StopRequest stop, MessageTracing tracing) {
        this.settings = settings;
        this.progress = progress;
        this.stop = stop;
        this.bank = new BankWiring(
                settings.strategy(),
                settings.workload().eventSide,
                settings.eventFlow(),
                settings.shutdownTimeout(),
                settings.stores(),
                settings.buses(),
                tracing);
    }

    /**
     * Runs the bank and returns its report.
     *
     * @param stop a request (Ctrl-C) ends the load early; the run then stops gracefully and reports as usual
     */
    public static Report run(Settings settings, Progress progress, StopRequest stop) {
        return run(settings, progress, stop, MessageTracing.NONE);
    }

    /** As {@link #run(Settings, Progress, StopRequest)}, every instance traced by {@code tracing}. */
    public static Report run(Settings settings, Progress progress, StopRequest stop, MessageTracing tracing) {
        return new BankRun(settings, progress, stop, tracing).run();
    }

    private Report run() {
        List<String> accounts = start();
        Sampler sampler = Sampler.start(
                settings.sampleInterval(), bank.metrics.bindings(), ledger::answered, latencies, progress, "cmd");
        BankClients clients = sendLoad(accounts);
        Stopped stopped = stop(clients, sampler);
        progress.phase("stopped; auditing the event store");
        return report(accounts, stopped);
    }

    /** Starts the runtime and opens the accounts; the report's queue wait and handler time are of the load. */
    private List<String> start() {
        progress.phase(String.format(
                Locale.ROOT,
                "starting the runtime (%s lanes) and opening %,d accounts with %,d each",
                settings.strategy(),
                settings.accounts(),
                OPENING_BALANCE));
        bank.start().block(SETUP_TIMEOUT);
        List<String> accounts = openAccounts();
        bank.metrics.resetTimings();
        return accounts;
    }

    private BankClients sendLoad(List<String> accounts) {
        if (!settings.warmup().isZero()) {
            progress.phase(String.format(
                    Locale.ROOT,
                    "%d clients warming up for %s (stored and audited, not counted)",
                    settings.clients(),
                    Formats.duration(settings.warmup())));
        }
        BankClients clients = BankClients.start(settings, accounts, bank.gateway, ledger, latencies);
        stop.stopsWithin(settings.warmup()
                .plus(settings.shutdownTimeout().multipliedBy(2))
                .plus(STOP_MARGIN));
        if (awaitWarmup(clients)) {
            progress.phase(String.format(Locale.ROOT, "%d clients sending %s", settings.clients(), settings.amount()));
            awaitLoad(clients);
        }
        return clients;
    }

    /** The graceful stop begins with the clients' last commands in flight; then waits for it and the clients. */
    private Stopped stop(BankClients clients, Sampler sampler) {
        clients.stopSending();
        sampler.label("stopping");
        if (settings.buses().kafka() != null) {
            // instances share the topics: let every consumer group read to the end before any instance stops
            clients.awaitDone(settings.shutdownTimeout());
            undrained = bank.awaitDrained(settings.shutdownTimeout());
            if (undrained != null) {
                progress.phase(undrained + "; stopping anyway");
            }
        }
        Mono<ShutdownReport> shutdown = bank.shutdown().cache();
        shutdown.subscribe();
        clients.awaitDone(settings.shutdownTimeout().plusSeconds(10));
        long measuredFrom = Math.min(clients.measuredFrom(), ledger.lastAnswerAt());
        long loadNanos = Math.max(1, ledger.lastAnswerAt() - measuredFrom);
        ShutdownReport stopped = Shutdowns.await(shutdown, settings.shutdownTimeout());
        Timeline timeline = sampler.stop();
        clients.dispose();
        return new Stopped(loadNanos, measuredFrom - clients.startedAt(), stopped, timeline, sampler.peakThreads());
    }

    private Report report(List<String> accounts, Stopped stopped) {
        List<Report.AggregateRow> rows = bank.metrics.bindings().stream()
                .map(RecordingMetrics.Binding::row)
                .toList();
        BankAudit.Findings audit = BankAudit.verify(bank, audited(accounts), OPENING_BALANCE * accounts.size(), ledger);
        List<Report.Invariant> invariants = new ArrayList<>(audit.invariants());
        invariants.add(gracefulStop(stopped.shutdown()));
        return new Report(
                run,
                setup(),
                load(stopped),
                latency(),
                counts(rows, audit),
                rows,
                new Report.Threads(stopped.peakThreads(), liveThreads()),
                invariants,
                stopped.shutdown(),
                stopped.timeline(),
                notes(audit));
    }

    /** The accounts the audit reads: the opened ones, plus the closed one that transfers bounce off. */
    private List<String> audited(List<String> accounts) {
        List<String> audited = new ArrayList<>(accounts);
        if (settings.workload().eventSide) {
            audited.add(BankClient.CLOSED_ACCOUNT);
        }
        return audited;
    }

    private Report.Setup setup() {
        return new Report.Setup(
                settings.workload().scenario,
                Formats.lower(settings.strategy()),
                title(),
                "commands",
                setupLines(),
                options());
    }

    /** Names the store and the buses the run used: the in-memory ones, PostgreSQL, Kafka. */
    private String title() {
        return title(settings.workload(), settings.stores(), settings.buses());
    }

    static String title(Workload workload, Stores stores, Buses buses) {
        String what = workload.eventSide
                ? "Lanes demo: the bank end to end"
                : "Lanes bench: the command path (gateway, command bus, command dispatcher, store)";
        boolean memoryStore = !stores.kind().equals("postgres");
        boolean memoryBuses = buses.kafka() == null;
        String store = memoryStore ? "the in-memory event store" : "PostgreSQL";
        if (memoryStore && memoryBuses) {
            return what + " on the in-memory event store and buses";
        }
        String bus = memoryBuses ? "the in-memory buses" : "Kafka, " + buses.instances() + " instance(s)";
        return what + " on " + store + " and " + bus;
    }

    private List<String> setupLines() {
        String clients = String.format(
                Locale.ROOT,
                "%,d accounts opened with %,d each; %d concurrent clients, one command at a time each, %s",
                settings.accounts(),
                OPENING_BALANCE,
                settings.clients(),
                settings.amount());
        String workers = bank.sharedWorkers == 0
                ? ""
                : String.format(Locale.ROOT, " (the dispatchers share one pool of %d workers)", bank.sharedWorkers);
        String wiring = "; " + settings.buses().description() + workers
                + (settings.workload().eventSide
                        ? "; processors: BalanceProjection, TransferSaga, Snapshotter (every 10 versions), OrderAudit"
                        : "; no event processors");
        return List.of(
                clients, settings.workload().mix.describe(), settings.stores().description() + wiring);
    }

    private Map<String, String> options() {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("accounts", Integer.toString(settings.accounts()));
        options.put("clients", Integer.toString(settings.clients()));
        Duration duration = settings.duration();
        if (duration == null) {
            options.put("commands", Long.toString(settings.commands()));
        } else {
            options.put("duration", Formats.duration(duration));
        }
        options.put("warmup", Formats.duration(settings.warmup()));
        options.put("shutdownTimeout", Formats.duration(settings.shutdownTimeout()));
        if (settings.workload().eventSide) {
            options.put("eventBusBudget", Integer.toString(settings.eventFlow().busBudget()));
            options.put("eventLaneBounds", settings.eventFlow().bounds());
        }
        options.put("seed", Long.toString(settings.seed()));
        options.put("strategy", Formats.lower(settings.strategy()));
        options.put("store", settings.stores().kind());
        options.put("bus", settings.buses().kind());
        options.put("instances", Integer.toString(settings.buses().instances()));
        return options;
    }

    private Report.Load load(Stopped stopped) {
        long handled = ledger.measured(Ledger.Answer.OK) + ledger.measured(Ledger.Answer.REFUSED);
        long measured = ledger.measured();
        return new Report.Load(measured, handled, stopped.loadNanos(), stopped.warmupNanos(), ledger.sent() - measured);
    }

    private Report.LatencyReport latency() {
        List<Report.Latency> stages = latencies.summaries().stream()
                .filter(stage -> stage.count() > 0)
                .toList();
        return new Report.LatencyReport(
                stages, Report.Latency.of("all", latencies.all()), null, null, Report.Distribution.of(latencies.all()));
    }

    private Report.Counts counts(List<Report.AggregateRow> rows, BankAudit.Findings audit) {
        Map<String, Long> outcomes = new LinkedHashMap<>();
        ledger.counts().forEach((answer, count) -> outcomes.put(Formats.lower(answer), count));
        return new Report.Counts(
                outcomes,
                rows.stream().mapToLong(Report.AggregateRow::retried).sum(),
                audit.parked(),
                rows.stream().mapToLong(Report.AggregateRow::rejected).sum(),
                audit.orderingViolations(),
                audit.lost(),
                null);
    }

    private List<String> notes(BankAudit.Findings audit) {
        List<String> notes = new ArrayList<>();
        ledger.errors()
                .forEach((error, count) ->
                        notes.add(String.format(Locale.ROOT, "%,d command(s) answered with %s", count, error)));
        notes.addAll(audit.notes());
        if (undrained != null) {
            notes.add(undrained);
        }
        String stopReason = stop.reason();
        if (stopReason != null) {
            notes.add("the load was cut short by " + stopReason + "; the runtime then stopped gracefully");
        }
        if (settings.warmup().isZero()) {
            notes.add("measured from a cold JVM, while the JIT compiles the hot paths: --warmup 10s measures the steady"
                    + " state");
        }
        return notes;
    }

    private static Report.Invariant gracefulStop(@Nullable ShutdownReport stopped) {
        if (stopped == null) {
            return new Report.Invariant("graceful stop", false, "the stop did not end in time");
        }
        String detail = String.format(
                Locale.ROOT,
                "%s in %,d ms with %,d lease(s) open when admission closed",
                stopped.graceful() ? "drained" : "forced",
                stopped.duration().toMillis(),
                Math.max(0, stopped.openAtClose()));
        return new Report.Invariant("graceful stop", stopped.graceful(), detail);
    }

    private static int liveThreads() {
        return ManagementFactory.getThreadMXBean().getThreadCount();
    }

    /** The accounts, opened and funded; plus, with the event side, a closed account that transfers bounce off. */
    private List<String> openAccounts() {
        List<String> accounts = new ArrayList<>();
        for (int i = 0; i < settings.accounts(); i++) {
            accounts.add("acct-" + i);
        }
        Flux.fromIterable(accounts).flatMap(this::openAndFund, 256).blockLast(SETUP_TIMEOUT);
        if (settings.workload().eventSide) {
            openClosedAccount().block(SETUP_TIMEOUT);
        }
        return accounts;
    }

    private Mono<Void> openAndFund(String id) {
        return bank.gateway
                .send(Bank.account(id), new OpenAccount("owner of " + id), WaitStage.PROCESSED)
                .then(bank.gateway.send(Bank.account(id), new Deposit(OPENING_BALANCE, "opening"), WaitStage.PROCESSED))
                .then();
    }

    private Mono<Void> openClosedAccount() {
        String closed = BankClient.CLOSED_ACCOUNT;
        return bank.gateway
                .send(Bank.account(closed), new OpenAccount("gone"), WaitStage.PROCESSED)
                .then(bank.gateway.send(Bank.account(closed), new CloseAccount(), WaitStage.PROCESSED))
                .then();
    }

    /** Until the warm-up is over, then ends it; false when the run ended or must stop first. */
    private boolean awaitWarmup(BankClients clients) {
        long end = clients.startedAt() + settings.warmup().toNanos();
        if (!awaitUntil(clients, end)) {
            return false;
        }
        if (clients.warmingUp()) {
            clients.endWarmup();
            bank.metrics.resetTimings(); // queue waits and handler times of the counted load
        }
        return true;
    }

    /** Until the clients are done, the duration is over, a stop is requested or nothing was answered for long. */
    private void awaitLoad(BankClients clients) {
        Duration duration = settings.duration();
        awaitUntil(clients, duration == null ? Long.MAX_VALUE : clients.measuredFrom() + duration.toNanos());
    }

    /**
     * Waits until {@code end} ({@code System.nanoTime()}; {@code Long.MAX_VALUE}: until the clients are done); false
     * when the clients were done, a stop was requested or they stalled.
     */
    private boolean awaitUntil(BankClients clients, long end) {
        long step = TimeUnit.MILLISECONDS.toNanos(100);
        while (true) {
            long left = end == Long.MAX_VALUE ? step : end - System.nanoTime();
            if (left <= 0) {
                return true;
            }
            if (clients.awaitDone(Math.min(step, left))) {
                return false;
            }
            if (stop.isRequested()) {
                progress.phase("stop requested by " + stop.reason() + "; stopping gracefully");
                return false;
            }
            if (System.nanoTime() - ledger.lastAnswerAt() > STALL_NANOS) {
                progress.phase("no command was answered for 30 s; stopping");
                return false;
            }
        }
    }
}
