package dev.lanes.cli;

import dev.lanes.command.WaitStage;
import dev.lanes.dispatch.LaneStrategy;
import dev.lanes.examples.bank.AccountCommand.CloseAccount;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.OpenAccount;
import dev.lanes.examples.bank.Bank;
import dev.lanes.runtime.ShutdownReport;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Runs the bank end to end: start the runtime, open the accounts, let the clients send for a duration or a count,
 * then stop gracefully ({@code LanesRuntime.shutdown()}) with their last commands and the saga's still in flight, and
 * audit the store. Used by {@code demo} and by {@code bench --scenario command} (command side only, deposits only).
 */
final class BankRun {
    static final long OPENING_BALANCE = 10_000;
    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(60);
    /** A run whose clients got no answer at all for this long is stopped and reported. */
    private static final long STALL_NANOS = TimeUnit.SECONDS.toNanos(30);

    /**
     * @param duration how long the clients send, or null to send {@code commands} in all
     */
    record Settings(
            String scenario,
            LaneStrategy strategy,
            boolean eventSide,
            BankClient.Mix mix,
            int accounts,
            int clients,
            @Nullable Duration duration,
            long commands,
            Duration shutdownTimeout,
            Duration sampleInterval,
            long seed,
            StoreOptions.Stores stores,
            BankWiring.EventFlow eventFlow) {}

    private final Settings settings;
    private final Progress progress;
    private final BankWiring bank;
    private final Ledger ledger = new Ledger();
    private final Latencies latencies = new Latencies();

    private BankRun(Settings settings, Progress progress) {
        this.settings = settings;
        this.progress = progress;
        this.bank = new BankWiring(
                settings.strategy(),
                settings.eventSide(),
                settings.eventFlow(),
                settings.shutdownTimeout(),
                settings.stores());
    }

    static Report run(Settings settings, Progress progress) {
        return new BankRun(settings, progress).run();
    }

    private Report run() {
        Report report =
                new Report(settings.scenario(), settings.strategy().name().toLowerCase(Locale.ROOT));
        report.unit = "commands";
        progress.phase(String.format(
                Locale.ROOT,
                "starting the runtime (%s lanes) and opening %,d accounts with %,d each",
                settings.strategy(),
                settings.accounts(),
                OPENING_BALANCE));
        bank.runtime.start().block(SETUP_TIMEOUT);
        List<String> accounts = openAccounts();
        bank.metrics.resetTimings(); // the report's queue wait and handler time are of the load
        BankClient.Timers timers = new BankClient.Timers(
                latencies.stage(WaitStage.SENT.name()),
                latencies.stage(WaitStage.PROCESSED.name()),
                latencies.stage(WaitStage.PROJECTED.name()));
        BankClient.Tickets tickets =
                new BankClient.Tickets(settings.duration() == null ? settings.commands() : Long.MAX_VALUE);
        Scheduler clientThreads = Schedulers.newParallel("lanes-client", Schedulers.DEFAULT_POOL_SIZE, true);
        Sampler sampler = Sampler.start(
                settings.sampleInterval(),
                bank.metrics.bindings(),
                ledger::answered,
                latencies.interval,
                progress,
                "cmd");
        progress.phase(String.format(
                Locale.ROOT,
                "%d clients sending %s",
                settings.clients(),
                settings.duration() == null
                        ? String.format(Locale.ROOT, "%,d commands", settings.commands())
                        : "for " + describe(Objects.requireNonNull(settings.duration()))));
        CountDownLatch clientsDone = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger(settings.clients());
        long loadStart = System.nanoTime();
        // each client on its own subscription: a flatMap over tens of thousands of clients scans them all whenever
        // one ends
        for (int id = 0; id < settings.clients(); id++) {
            new BankClient(
                            id,
                            settings.mix(),
                            accounts,
                            settings.seed(),
                            bank.gateway,
                            ledger,
                            timers,
                            tickets,
                            clientThreads)
                    .run()
                    .doFinally(signal -> {
                        if (running.decrementAndGet() == 0) {
                            clientsDone.countDown();
                        }
                    })
                    .subscribe();
        }
        awaitLoad(clientsDone, loadStart);
        tickets.stop();
        sampler.label("stopping");
        Mono<ShutdownReport> shutdown = bank.runtime.shutdown().cache();
        shutdown.subscribe(); // the graceful stop begins now, with the clients' last commands in flight
        await(clientsDone, settings.shutdownTimeout().plusSeconds(10));
        long loadNanos = Math.max(1, ledger.lastAnswerAt() - loadStart);
        ShutdownReport stopped = Shutdowns.await(shutdown, settings.shutdownTimeout());
        Timeline timeline = sampler.stop();
        clientThreads.dispose();
        progress.phase("stopped; auditing the event store");

        report.title = settings.eventSide()
                ? "Lanes demo: the bank end to end on the embedded defaults"
                : "Lanes bench: the command path (gateway, command bus, command dispatcher, in-memory store)";
        describe(report);
        report.messages = ledger.sent();
        report.loadNanos = loadNanos;
        report.stages.addAll(latencies.summaries().stream()
                .filter(stage -> stage.count() > 0)
                .toList());
        report.latencyHistogram = latencies.all();
        report.latency = Report.Latency.of("all", latencies.all());
        bank.metrics.bindings().forEach(binding -> report.aggregates.add(binding.row()));
        report.retried = report.aggregates.stream()
                .mapToLong(Report.AggregateRow::retried)
                .sum();
        report.rejected = report.aggregates.stream()
                .mapToLong(Report.AggregateRow::rejected)
                .sum();
        var answers = ledger.counts();
        report.handled = ledger.count(Ledger.Answer.OK) + ledger.count(Ledger.Answer.REFUSED);
        answers.forEach((answer, count) -> report.outcomes.put(answer.name().toLowerCase(Locale.ROOT), count));
        ledger.errors()
                .forEach((error, count) ->
                        report.notes.add(String.format(Locale.ROOT, "%,d command(s) answered with %s", count, error)));
        report.liveThreadsPeak = sampler.peakThreads();
        report.liveThreadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
        report.shutdown = stopped;
        report.timeline = timeline;
        List<String> audited = new ArrayList<>(accounts);
        if (settings.eventSide()) {
            audited.add(BankClient.CLOSED_ACCOUNT);
        }
        BankAudit.verify(bank, audited, OPENING_BALANCE * accounts.size(), ledger, report);
        report.check(
                "graceful stop",
                stopped != null && stopped.graceful(),
                stopped == null
                        ? "the stop did not end in time"
                        : String.format(
                                Locale.ROOT,
                                "%s in %,d ms with %,d lease(s) open when admission closed",
                                stopped.graceful() ? "drained" : "forced",
                                stopped.duration().toMillis(),
                                Math.max(0, stopped.openAtClose())));
        return report;
    }

    private void describe(Report report) {
        report.setup.add(String.format(
                Locale.ROOT,
                "%,d accounts opened with %,d each; %d concurrent clients, one command at a time each, %s",
                settings.accounts(),
                OPENING_BALANCE,
                settings.clients(),
                settings.duration() == null
                        ? String.format(Locale.ROOT, "%,d commands", settings.commands())
                        : "for " + describe(Objects.requireNonNull(settings.duration()))));
        report.setup.add(settings.mix().describe());
        report.setup.add(
                settings.eventSide()
                        ? settings.stores().description()
                                + "; in-memory command bus and event bus; processors: BalanceProjection, TransferSaga,"
                                + " Snapshotter (every 10 versions), OrderAudit"
                        : settings.stores().description() + "; in-memory command bus; no event processors");
        report.options.put("accounts", Integer.toString(settings.accounts()));
        report.options.put("clients", Integer.toString(settings.clients()));
        Duration duration = settings.duration();
        report.options.put(
                duration == null ? "commands" : "duration",
                duration == null ? Long.toString(settings.commands()) : describe(duration));
        report.options.put("shutdownTimeout", describe(settings.shutdownTimeout()));
        if (settings.eventSide()) {
            BankWiring.EventFlow flow = settings.eventFlow();
            report.options.put("eventBusBudget", Integer.toString(flow.busBudget()));
            report.options.put("eventLaneBounds", flow.perLane() + "/" + flow.perProcessor());
        }
        report.options.put("seed", Long.toString(settings.seed()));
    }

    /** The accounts, opened and funded; plus, with the event side, a closed account that transfers bounce off. */
    private List<String> openAccounts() {
        List<String> accounts = new ArrayList<>();
        for (int i = 0; i < settings.accounts(); i++) {
            accounts.add("acct-" + i);
        }
        Flux.fromIterable(accounts)
                .flatMap(
                        id -> bank.gateway
                                .send(Bank.account(id), new OpenAccount("owner of " + id), WaitStage.PROCESSED)
                                .then(bank.gateway.send(
                                        Bank.account(id),
                                        new Deposit(OPENING_BALANCE, "opening"),
                                        WaitStage.PROCESSED)),
                        256)
                .blockLast(SETUP_TIMEOUT);
        if (settings.eventSide()) {
            bank.gateway
                    .send(Bank.account(BankClient.CLOSED_ACCOUNT), new OpenAccount("gone"), WaitStage.PROCESSED)
                    .then(bank.gateway.send(
                            Bank.account(BankClient.CLOSED_ACCOUNT), new CloseAccount(), WaitStage.PROCESSED))
                    .block(SETUP_TIMEOUT);
        }
        return accounts;
    }

    /** Until the clients are done, the duration is over, or nothing was answered for a long time. */
    private void awaitLoad(CountDownLatch clientsDone, long loadStart) {
        Duration duration = settings.duration();
        long deadline = duration == null ? Long.MAX_VALUE : loadStart + duration.toNanos();
        try {
            while (clientsDone.getCount() > 0) {
                long now = System.nanoTime();
                if (now >= deadline) {
                    return;
                }
                if (now - ledger.lastAnswerAt() > STALL_NANOS) {
                    progress.phase("no command was answered for 30 s; stopping");
                    return;
                }
                clientsDone.await(Math.min(100_000_000L, deadline - now), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(CountDownLatch latch, Duration timeout) {
        try {
            latch.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String describe(Duration duration) {
        long millis = duration.toMillis();
        if (millis % 1000 != 0) {
            return millis < 1000 ? millis + " ms" : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
        }
        return millis / 1000 + " s";
    }
}
