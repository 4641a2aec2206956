package dev.lanes.cli.bank;

import dev.lanes.cli.run.Latencies;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.WaitStage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The clients of a bank run, each its own loop (a {@code flatMap} over tens of thousands of clients scans them all
 * whenever one ends), sharing the tickets and a pool of one daemon thread per CPU. The pool is a {@link ForkJoinPool}:
 * it runs each client's first send, and every send handed to it (after a failure; on Kafka, after every answer) without
 * a lock, waking a thread only when one is idle. On the in-memory buses a client sends after a success on the thread
 * that answered (see {@link BankClient}).
 */
final class BankClients {
    private final ForkJoinPool threads =
            new ForkJoinPool(Runtime.getRuntime().availableProcessors(), BankClients::thread, null, true);
    private final BankClient.Tickets tickets;
    private final CountDownLatch done = new CountDownLatch(1);
    private final AtomicInteger running;
    private final long startedAt = System.nanoTime();
    private volatile long measuredFrom;

    private BankClients(BankRun.Settings settings) {
        boolean warmup = !settings.warmup().isZero();
        this.tickets =
                new BankClient.Tickets(settings.duration() == null ? settings.commands() : Long.MAX_VALUE, warmup);
        this.running = new AtomicInteger(settings.clients());
        this.measuredFrom = warmup ? Long.MAX_VALUE : startedAt;
    }

    /** Starts {@code settings.clients()} clients; the load starts now. */
    static BankClients start(
            BankRun.Settings settings,
            List<String> accounts,
            CommandGateway gateway,
            Ledger ledger,
            Latencies latencies) {
        BankClients clients = new BankClients(settings);
        List<String> shared = List.copyOf(accounts); // each client's copy of it is this same list
        BankClient.Continuation continuation = settings.buses().sendsWithoutBlocking()
                ? BankClient.Continuation.INLINE
                : BankClient.Continuation.HAND_OFF;
        BankClient.Timers timers = new BankClient.Timers(
                latencies.stage(WaitStage.SENT.name()),
                latencies.stage(WaitStage.PROCESSED.name()),
                latencies.stage(WaitStage.PROJECTED.name()));
        for (int id = 0; id < settings.clients(); id++) {
            BankClient client = new BankClient(
                    id,
                    settings.workload().mix,
                    shared,
                    settings.seed(),
                    gateway,
                    ledger,
                    timers,
                    clients.tickets,
                    clients.threads,
                    continuation);
            client.start(clients::ended);
        }
        return clients;
    }

    /** {@code System.nanoTime()} when the load started, the warm-up included. */
    long startedAt() {
        return startedAt;
    }

    /** Ends the warm-up: the commands sent from now on are counted. */
    void endWarmup() {
        measuredFrom = System.nanoTime();
        tickets.endWarmup();
    }

    boolean warmingUp() {
        return tickets.warmingUp();
    }

    /** {@code System.nanoTime()} when the counted load started (the end of the warm-up). */
    long measuredFrom() {
        return measuredFrom;
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
        threads.shutdownNow();
    }

    private static ForkJoinWorkerThread thread(ForkJoinPool pool) {
        ForkJoinWorkerThread thread = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
        thread.setName("lanes-client-" + thread.getPoolIndex());
        thread.setDaemon(true);
        return thread;
    }

    private void ended() {
        if (running.decrementAndGet() == 0) {
            done.countDown();
        }
    }
}
