package dev.lanes.cli.bank;

import dev.lanes.cli.run.Latencies;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.WaitStage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The clients of a bank run, each on its own subscription (a {@code flatMap} over tens of thousands of clients scans
 * them all whenever one ends), sharing the tickets and a scheduler of daemon threads.
 */
final class BankClients {
    private final Scheduler threads = Schedulers.newParallel("lanes-client", Schedulers.DEFAULT_POOL_SIZE, true);
    private final BankClient.Tickets tickets;
    private final CountDownLatch done = new CountDownLatch(1);
    private final AtomicInteger running;
    private final long startedAt = System.nanoTime();

    private BankClients(BankRun.Settings settings) {
        this.tickets = new BankClient.Tickets(settings.duration() == null ? settings.commands() : Long.MAX_VALUE);
        this.running = new AtomicInteger(settings.clients());
    }

    /** Starts {@code settings.clients()} clients; the load starts now. */
    static BankClients start(
            BankRun.Settings settings,
            List<String> accounts,
            CommandGateway gateway,
            Ledger ledger,
            Latencies latencies) {
        BankClients clients = new BankClients(settings);
        BankClient.Timers timers = new BankClient.Timers(
                latencies.stage(WaitStage.SENT.name()),
                latencies.stage(WaitStage.PROCESSED.name()),
                latencies.stage(WaitStage.PROJECTED.name()));
        for (int id = 0; id < settings.clients(); id++) {
            BankClient client = new BankClient(
                    id,
                    settings.workload().mix,
                    accounts,
                    settings.seed(),
                    gateway,
                    ledger,
                    timers,
                    clients.tickets,
                    clients.threads);
            client.run().doFinally(signal -> clients.ended()).subscribe();
        }
        return clients;
    }

    /** {@code System.nanoTime()} when the load started. */
    long startedAt() {
        return startedAt;
    }

    /** No client sends another command; those in flight still get their answers. */
    void stopSending() {
        tickets.stop();
    }

    /** Waits up to {@code nanos} for every client to have its last answer; true when they all have. */
    boolean awaitDone(long nanos) {
        try {
            return done.await(nanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    void awaitDone(Duration timeout) {
        awaitDone(timeout.toNanos());
    }

    void dispose() {
        threads.dispose();
    }

    private void ended() {
        if (running.decrementAndGet() == 0) {
            done.countDown();
        }
    }
}
