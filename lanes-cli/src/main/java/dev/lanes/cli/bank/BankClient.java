package dev.lanes.cli.bank;

import dev.lanes.cli.run.Latencies;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.CommandResult;
import dev.lanes.command.StageNotReachedException;
import dev.lanes.command.WaitStage;
import dev.lanes.examples.bank.AccountCommand.Deposit;
import dev.lanes.examples.bank.AccountCommand.Withdraw;
import dev.lanes.examples.bank.Bank;
import dev.lanes.examples.bank.TransferSaga;
import dev.lanes.modeling.CommandRejectedException;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/**
 * One client of the bank: sends one command at a time through the gateway and waits for its answer before the next
 * (a closed loop). Each command carries a unique reference {@code c<client>.<n>} so the audit can find it in the store.
 *
 * <p>Threads: the first send runs on the clients' threads. After a command succeeded, the next is sent on the thread
 * that answered, as a Reactor chain ({@code concatMap}) would, when the client {@linkplain Continuation#INLINE continues
 * inline}: on the in-memory buses, where a send never blocks. A send that answers before it returns (an error at
 * once, say) does not nest: the loop that is sending sends the next one. After a failure, and always with {@link
 * Continuation#HAND_OFF}, the next send is handed to the clients' threads, so that a client refused at once (an
 * overloaded bus) does not spin on the thread that refused it.
 */
final class BankClient {
    /** The account every transfer targets that the saga must refund: it is closed. */
    static final String CLOSED_ACCOUNT = "closed-1";
    /** The first accounts, which get {@code hotShare} of the commands. */
    static final int HOT_ACCOUNTS = 3;

    /**
     * What a client sends. Transfers are the rest after deposits and withdrawals.
     *
     * @param sentShare of deposits, sent with wait stage SENT (the rest waits for PROCESSED or PROJECTED)
     * @param projectedShare of the commands that wait for their outcome, those that wait for PROJECTED
     * @param hotShare of commands that go to the {@link #HOT_ACCOUNTS} hot accounts
     * @param closedShare of transfers whose target is the closed account (the saga refunds them)
     */
    record Mix(
            double deposits,
            double withdrawals,
            double sentShare,
            double projectedShare,
            double hotShare,
            double closedShare) {
        static final Mix DEMO = new Mix(0.35, 0.25, 0.25, 0.30, 0.20, 0.02);
        static final Mix DEPOSITS = new Mix(1.0, 0, 0, 0, 0, 0);

        String describe() {
            String kinds = deposits >= 1
                    ? "deposits only"
                    : String.format(
                            java.util.Locale.ROOT,
                            "%.0f%% deposits, %.0f%% withdrawals, %.0f%% transfers (a saga credits the target; %.0f%%"
                                    + " go to a closed account and are refunded)",
                            deposits * 100,
                            withdrawals * 100,
                            (1 - deposits - withdrawals) * 100,
                            closedShare * 100);
            String stages = sentShare == 0 && projectedShare == 0
                    ? "each waits for PROCESSED"
                    : String.format(
                            java.util.Locale.ROOT,
                            "%.0f%% of deposits wait for SENT, the other commands for PROCESSED or (%.0f%%) PROJECTED",
                            sentShare * 100,
                            projectedShare * 100);
            String hot = hotShare == 0
                    ? "accounts picked uniformly"
                    : String.format(
                            java.util.Locale.ROOT,
                            "%.0f%% of commands to %d hot accounts",
                            hotShare * 100,
                            HOT_ACCOUNTS);
            return kinds + "; " + stages + "; " + hot;
        }
    }

    /**
     * Shared by the clients: whether they still warm up (then they send without counting), how many commands may still
     * be sent after, and whether to stop.
     */
    static final class Tickets {
        private final AtomicLong remaining;
        private volatile boolean warmingUp;
        private volatile boolean stopped;

        Tickets(long commands, boolean warmingUp) {
            this.remaining = new AtomicLong(commands);
            this.warmingUp = warmingUp;
        }

        /** A command may be sent: a warm-up one or a counted one; or none. */
        enum Ticket {
            NONE,
            WARMUP,
            COUNTED
        }

        Ticket take() {
            if (stopped) {
                return Ticket.NONE;
            }
            if (warmingUp) {
                return Ticket.WARMUP;
            }
            return remaining.getAndDecrement() > 0 ? Ticket.COUNTED : Ticket.NONE;
        }

        boolean warmingUp() {
            return warmingUp;
        }

        /** From now on, commands are counted, and taken from the tickets. */
        void endWarmup() {
            warmingUp = false;
        }

        void stop() {
            stopped = true;
        }
    }

    /** Where a client sends its next command after a success. */
    enum Continuation {
        /** On the thread that answered: for buses whose send never blocks. */
        INLINE,
        /** On the clients' threads. */
        HAND_OFF
    }

    /** Where a client's latencies go, per wait stage. */
    record Timers(Latencies.Stage sent, Latencies.Stage processed, Latencies.Stage projected) {
        Latencies.Stage of(WaitStage stage) {
            return switch (stage) {
                case SENT -> sent;
                case PROCESSED -> processed;
                case PROJECTED -> projected;
            };
        }
    }

    private final int id;
    private final Mix mix;
    private final List<String> accounts;
    private final int hotAccounts;
    private final SplittableRandom random;
    private final CommandGateway gateway;
    private final Ledger ledger;
    private final Ledger.Book book;
    private final Timers timers;
    private final Tickets tickets;
    private final Executor threads;
    private final Continuation continuation;
    /** Answers to follow up inline; the thread that takes it from 0 sends until it is back to 0. */
    private final AtomicInteger inlineSends = new AtomicInteger();

    private Runnable ended = () -> {};

    BankClient(
            int id,
            Mix mix,
            List<String> accounts,
            long seed,
            CommandGateway gateway,
            Ledger ledger,
            Timers timers,
            Tickets tickets,
            Executor threads,
            Continuation continuation) {
        this.id = id;
        this.mix = mix;
        this.accounts = List.copyOf(accounts);
        this.hotAccounts = Math.min(HOT_ACCOUNTS, accounts.size());
        this.random = new SplittableRandom(seed * 1_000_003L + id);
        this.gateway = gateway;
        this.ledger = ledger;
        this.book = ledger.book(id);
        this.timers = timers;
        this.tickets = tickets;
        this.threads = threads;
        this.continuation = continuation;
    }

    /**
     * Sends commands until the tickets run out or are stopped, then runs {@code ended} once, after the last answer. Each
     * send, the first included, runs on the clients' threads.
     */
    void start(Runnable ended) {
        this.ended = ended;
        threads.execute(this::next);
    }

    private void next() {
        Tickets.Ticket ticket = tickets.take();
        if (ticket == Tickets.Ticket.NONE) {
            ended.run();
            return;
        }
        try {
            sendOne(ticket == Tickets.Ticket.COUNTED);
        } catch (RuntimeException bug) {
            ended.run();
            throw bug;
        }
    }

    private void sendOne(boolean measured) {
        String reference = book.nextReference();
        String account = pickAccount();
        double kind = random.nextDouble();
        Ledger.Entry entry;
        Object command;
        if (kind < mix.deposits()) {
            long amount = 1L + random.nextInt(100);
            WaitStage stage = random.nextDouble() < mix.sentShare() ? WaitStage.SENT : outcomeStage();
            entry = book.add(new Ledger.Entry(reference, Ledger.Kind.DEPOSIT, account, amount, null, stage, measured));
            command = new Deposit(amount, reference);
        } else if (kind < mix.deposits() + mix.withdrawals()) {
            long amount = 1L + random.nextInt(100);
            entry = book.add(new Ledger.Entry(
                    reference, Ledger.Kind.WITHDRAWAL, account, amount, null, outcomeStage(), measured));
            command = new Withdraw(amount, reference);
        } else {
            long amount = 1L + random.nextInt(200);
            String target = random.nextDouble() < mix.closedShare() ? CLOSED_ACCOUNT : pickOther(account);
            entry = book.add(new Ledger.Entry(
                    reference, Ledger.Kind.TRANSFER, account, amount, target, outcomeStage(), measured));
            command = new Withdraw(amount, TransferSaga.debitReference(reference, target));
        }
        send(entry, command);
    }

    private void send(Ledger.Entry entry, Object command) {
        Latencies.@Nullable Stage timer = entry.measured ? timers.of(entry.stage) : null; // warm-up: not recorded
        gateway.send(Bank.account(entry.account), command, entry.stage).subscribe(new Answer(entry, timer));
    }

    /** Takes one command's answer into the ledger (and its latency), then hands the next send to the clients' threads. */
    private final class Answer implements CoreSubscriber<CommandResult> {
        private final Ledger.Entry entry;
        private final Latencies.@Nullable Stage timer;
        private final long start = System.nanoTime();

        Answer(Ledger.Entry entry, Latencies.@Nullable Stage timer) {
            this.entry = entry;
            this.timer = timer;
        }

        @Override
        public void onSubscribe(Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(CommandResult result) {
            if (timer != null) {
                timer.record(System.nanoTime() - start);
            }
            ledger.answer(entry, Ledger.Answer.OK, null);
        }

        @Override
        public void onError(Throwable error) {
            boolean refused = error instanceof CommandRejectedException;
            if (refused && timer != null) {
                timer.record(System.nanoTime() - start);
            }
            ledger.answer(entry, answer(error, refused), error);
            handOffNext();
        }

        @Override
        public void onComplete() {
            if (continuation == Continuation.INLINE) {
                sendNextInline();
            } else {
                handOffNext();
            }
        }
    }

    /** Sends the next command on this thread, unless a send of this client is on the stack: then that loop does. */
    private void sendNextInline() {
        if (inlineSends.getAndIncrement() != 0) {
            return;
        }
        do {
            next();
        } while (inlineSends.decrementAndGet() != 0);
    }

    /** Hands the next send to the clients' threads; an answer that comes after they were shut down ends this client. */
    private void handOffNext() {
        try {
            threads.execute(this::next);
        } catch (RejectedExecutionException shutDown) {
            ended.run();
        }
    }

    /** A wait cut short still says whether the command is stored; anything else stored nothing. */
    private static Ledger.Answer answer(Throwable error, boolean refused) {
        if (refused) {
            return Ledger.Answer.REFUSED;
        }
        if (error instanceof StageNotReachedException notReached) {
            return switch (notReached.storage()) {
                case STORED -> Ledger.Answer.STORED;
                case UNKNOWN -> Ledger.Answer.UNKNOWN;
                case NOT_STORED -> Ledger.Answer.REJECTED;
            };
        }
        return Ledger.Answer.REJECTED;
    }

    private WaitStage outcomeStage() {
        return random.nextDouble() < mix.projectedShare() ? WaitStage.PROJECTED : WaitStage.PROCESSED;
    }

    private String pickAccount() {
        if (random.nextDouble() < mix.hotShare()) {
            return accounts.get(random.nextInt(hotAccounts));
        }
        return accounts.get(random.nextInt(accounts.size()));
    }

    private String pickOther(String source) {
        if (accounts.size() == 1) {
            return source;
        }
        String target;
        do {
            target = accounts.get(random.nextInt(accounts.size()));
        } while (target.equals(source));
        return target;
    }

    @Override
    public String toString() {
        return "BankClient[" + id + "]";
    }
}
