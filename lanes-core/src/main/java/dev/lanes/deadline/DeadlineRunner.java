package dev.lanes.deadline;

import dev.lanes.api.LanesException;
import dev.lanes.command.CommandGateway;
import dev.lanes.command.StageNotReachedException;
import dev.lanes.command.UnknownAggregateTypeException;
import dev.lanes.command.WaitStage;
import dev.lanes.command.lane.CommandParkedException;
import dev.lanes.dispatch.ExchangeRejectedException;
import dev.lanes.internal.Ids;
import dev.lanes.internal.Require;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.modeling.CommandRejectedException;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Fires due deadlines: every {@code pollInterval} (on its {@link Scheduler}) it claims the deadlines due on its {@link
 * Clock} from the {@link DeadlineStore} and sends each one's payload through the gateway as a follow-up command with
 * the request id {@code deadline:<id>}, waiting for {@link WaitStage#PROCESSED} outside any lane.
 *
 * <p><b>At least once, applied once.</b> A deadline is removed from the store only after its command was processed;
 * a runner that dies in between leaves its claim to expire, and another runner (or this one after a restart) fires it
 * again: the event store answers the second command with the stored result of the first (same request id), so its
 * events are appended once. A deadline due while no runner ran fires at the first poll after the next start.
 *
 * <p><b>Failures.</b> A {@link CommandRejectedException} is the aggregate's answer, and a {@link
 * CommandParkedException} means the command side parked it behind the aggregate's parked commands: the deadline is
 * removed and the outcome logged. Any other failure (a handler that throws, a full lane, a timed-out wait) is fired
 * again after {@code retryBackoff}, the same request id each time; once {@code maxAttempts} failed (transient failures
 * are retried without limit), the command is parked in the dead-letter queue under its aggregate's command sequence
 * ({@code commands:<type>}, as the command side parks), where {@code lanes parked retry} sends it again with its
 * request id, and the deadline is removed. The attempt count is kept in memory: a restart gives a deadline its
 * attempts again.
 *
 * <p><b>Lifecycle.</b> NEW, {@link #start()} (once) to RUNNING, {@link #stop()} to STOPPED: no new poll starts, and the
 * returned {@code Mono} completes once the poll in flight finished. Start it after the runtime whose gateway it uses,
 * stop it before that runtime. Deadlines claimed but not fired when a stop is forced fire after their lease.
 */
public final class DeadlineRunner {
    private static final Logger log = LoggerFactory.getLogger(DeadlineRunner.class);

    /** The prefix of the name the command side parks an aggregate type's commands under ({@code commands:<type>}). */
    static final String COMMANDS_PREFIX = "commands:";

    /** The header that names the deadline a command fires. */
    public static final String DEADLINE_HEADER = "lanes.deadline";

    private enum State {
        NEW,
        RUNNING,
        STOPPED
    }

    private final Settings settings;
    private final DeadlineStore store;
    private final CommandGateway gateway;
    private final Clock clock;
    private final Scheduler scheduler;
    private final boolean ownsScheduler;
    private final AtomicBoolean polling = new AtomicBoolean();
    private final AtomicLong fired = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong parked = new AtomicLong();
    private final DeadLetterQueue deadLetters;
    /** Failed attempts per deadline id, while it is retried (an attempt after a restart starts the count again). */
    private final Map<String, Integer> attempts = new ConcurrentHashMap<>();

    private State state = State.NEW;
    private @Nullable Disposable ticks;
    private Mono<Void> current = Mono.empty();

    /**
     * How a runner polls.
     *
     * @param pollInterval between two polls; positive
     * @param batchSize the most deadlines one poll claims (a full batch is followed by another poll at once)
     * @param claimLease how long a claim hides a deadline from other runners: longer than the command's wait
     * @param retryBackoff when a deadline whose command failed for a transient reason is claimed again
     */
    public record Settings(
            Duration pollInterval, int batchSize, Duration claimLease, Duration retryBackoff, int maxAttempts) {

        /**
         * Every second, 100 at a time, claimed for a minute, failures fired again after a second, parked after 4
         * attempts.
         */
        public static final Settings DEFAULT =
                new Settings(Duration.ofSeconds(1), 100, Duration.ofMinutes(1), Duration.ofSeconds(1), 4);

        public Settings {
            Require.positive(pollInterval, "pollInterval");
            Require.positive(batchSize, "batchSize");
            Require.positive(claimLease, "claimLease");
            Require.positive(retryBackoff, "retryBackoff");
            Require.positive(maxAttempts, "maxAttempts");
        }

        public Settings withPollInterval(Duration interval) {
            return new Settings(interval, batchSize, claimLease, retryBackoff, maxAttempts);
        }

        public Settings withBatchSize(int size) {
            return new Settings(pollInterval, size, claimLease, retryBackoff, maxAttempts);
        }

        public Settings withClaimLease(Duration lease) {
            return new Settings(pollInterval, batchSize, lease, retryBackoff, maxAttempts);
        }

        /** How long after a failed attempt a deadline fires again, and how many attempts it gets before it parks. */
        public Settings withRetries(Duration backoff, int attempts) {
            return new Settings(pollInterval, batchSize, claimLease, backoff, attempts);
        }
    }

    private DeadlineRunner(
            DeadlineStore store,
            CommandGateway gateway,
            Clock clock,
            @Nullable Scheduler scheduler,
            Settings settings,
            DeadLetterQueue deadLetters) {
        this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
        this.store = Objects.requireNonNull(store, "store");
        this.gateway = Objects.requireNonNull(gateway, "gateway");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.ownsScheduler = scheduler == null;
        this.scheduler = scheduler != null ? scheduler : Schedulers.newSingle("DeadlineRunner", true);
    }

    /**
     * A runner on the system clock and a scheduler of its own (stopped with it), with {@link Settings#DEFAULT}, parking
     * in {@code deadLetters} (give it the runtime's: {@code lanes parked} then reaches what it parks).
     */
    public static DeadlineRunner create(DeadlineStore store, CommandGateway gateway, DeadLetterQueue deadLetters) {
        return new DeadlineRunner(store, gateway, Clock.systemUTC(), null, Settings.DEFAULT, deadLetters);
    }

    /**
     * A runner whose time is {@code clock} and whose polls run on {@code scheduler} (not stopped with it): in tests a
     * {@code VirtualTimeScheduler} and {@link Deadlines#clockOf} of it.
     */
    public static DeadlineRunner create(
            DeadlineStore store,
            CommandGateway gateway,
            DeadLetterQueue deadLetters,
            Clock clock,
            Scheduler scheduler,
            Settings settings) {
        return new DeadlineRunner(
                store, gateway, clock, Objects.requireNonNull(scheduler, "scheduler"), settings, deadLetters);
    }

    /**
     * Polls now, then every {@code pollInterval}.
     *
     * @throws IllegalStateException naming the state if not NEW
     */
    public synchronized DeadlineRunner start() {
        if (state != State.NEW) {
            throw new IllegalStateException(this + " cannot start: it is " + state + " (a runner starts once)");
        }
        state = State.RUNNING;
        long interval = settings.pollInterval().toNanos();
        ticks = scheduler.schedulePeriodically(this::poll, 0, interval, TimeUnit.NANOSECONDS);
        return this;
    }

    /** Starts no new poll; completes when the poll in flight (if any) finished. Idempotent. */
    public synchronized Mono<Void> stop() {
        if (state != State.STOPPED) {
            state = State.STOPPED;
            Disposable tick = ticks;
            if (tick != null) {
                tick.dispose();
            }
        }
        Mono<Void> last = current;
        return ownsScheduler ? last.doFinally(signal -> scheduler.dispose()) : last;
    }

    /**
     * This runner as a part of a runtime ({@code Lanes.builder().deadlines(...)} adds it so): it starts polling when
     * the runtime starts (after the dispatchers, so a fired command is taken), stops polling when the runtime quiesces
     * and ends its poll in flight within the graceful stop; a forced stop stops polling at once.
     */
    public RuntimeComponent component() {
        DeadlineRunner runner = this;
        return new RuntimeComponent() {
            @Override
            public String name() {
                return runner.toString();
            }

            @Override
            public Mono<Void> prepare(RuntimeContext context) {
                return Mono.empty();
            }

            @Override
            public void start() {
                runner.start();
            }

            @Override
            public void quiesce() {
                runner.stop().subscribe(null, error -> {}); // its end is awaited by stopGracefully
            }

            @Override
            public Mono<Void> stopGracefully() {
                return Mono.defer(runner::stop);
            }

            @Override
            public void forceStop() {
                runner.stop().subscribe(null, error -> {});
            }
        };
    }

    /** Deadlines whose command was processed (or failed for good) by this runner. */
    public long fired() {
        return fired.get();
    }

    /** Failed attempts of deadlines, fired again after the backoff. */
    public long retried() {
        return failed.get();
    }

    /** Deadlines whose attempts were spent, parked in the dead-letter queue. */
    public long parked() {
        return parked.get();
    }

    /** Claims the due deadlines and fires them, unless a poll is in flight or the runner stopped. */
    void poll() {
        synchronized (this) {
            if (state != State.RUNNING || !polling.compareAndSet(false, true)) {
                return;
            }
            Mono<Void> run = Mono.defer(
                            () -> store.claimDue(clock.instant(), settings.batchSize(), settings.claimLease()))
                    .flatMap(this::fireAll)
                    .onErrorResume(error -> {
                        log.warn("{} could not claim due deadlines from {}: {}", this, store, error.toString());
                        return Mono.just(false);
                    })
                    .doOnNext(full -> {
                        polling.set(false);
                        if (full) {
                            scheduler.schedule(this::poll);
                        }
                    })
                    .doOnTerminate(() -> polling.set(false))
                    .then()
                    .cache();
            current = run;
            run.subscribe();
        }
    }

    /** Fires a claimed batch concurrently; whether it was full. */
    private Mono<Boolean> fireAll(List<Deadline> claimed) {
        return Flux.fromIterable(claimed).flatMap(this::fire).then(Mono.just(claimed.size() == settings.batchSize()));
    }

    private Mono<Void> fire(Deadline deadline) {
        CommandMessage message = new CommandMessage(
                Ids.randomUuid(),
                deadline.target(),
                deadline.requestId(),
                deadline.payload(),
                clock.instant(),
                Map.of(CommandMessage.CAUSE_HEADER, deadline.requestId(), DEADLINE_HEADER, deadline.name()));
        return Mono.defer(() -> gateway.send(message, WaitStage.PROCESSED))
                .then(Mono.defer(() -> done(deadline, null)))
                .onErrorResume(
                        error -> error instanceof CommandRejectedException || error instanceof CommandParkedException
                                ? done(deadline, error)
                                : failed(deadline, message, error))
                .onErrorResume(storeError -> {
                    log.warn(
                            "{} could not settle {} in {} (it fires again after its claim): {}",
                            this,
                            deadline,
                            store,
                            storeError.toString());
                    return Mono.empty();
                });
    }

    private Mono<Void> done(Deadline deadline, @Nullable Throwable error) {
        attempts.remove(deadline.id());
        if (error != null) {
            log.warn(
                    "{} fired {}; the aggregate rejected its command ({}): the deadline is removed",
                    this,
                    deadline,
                    error.toString());
        }
        return store.remove(deadline.id())
                .doOnSuccess(removed -> fired.incrementAndGet())
                .then();
    }

    /** A failed attempt: fired again after the backoff, or parked once its attempts are spent. */
    private Mono<Void> failed(Deadline deadline, CommandMessage message, Throwable error) {
        int attempt = attempts.merge(deadline.id(), 1, Integer::sum);
        if (transientFailure(error) || attempt < settings.maxAttempts()) {
            return retryLater(deadline, attempt, error);
        }
        String processor = COMMANDS_PREFIX + deadline.target().materialize();
        return deadLetters
                .enqueueCommand(processor, message, String.valueOf(error), attempt)
                .then(Mono.defer(() -> {
                    attempts.remove(deadline.id());
                    parked.incrementAndGet();
                    log.warn(
                            "{} parked {} in {} after {} attempt(s): {}",
                            this,
                            deadline,
                            processor,
                            attempt,
                            error.toString());
                    return store.remove(deadline.id());
                }))
                .doOnSuccess(removed -> fired.incrementAndGet())
                .then();
    }

    private Mono<Void> retryLater(Deadline deadline, int attempt, Throwable error) {
        failed.incrementAndGet();
        log.info(
                "{} fires {} again in {} (attempt {} failed): {}",
                this,
                deadline,
                settings.retryBackoff(),
                attempt,
                error.toString());
        return store.release(deadline.id(), clock.instant().plus(settings.retryBackoff()));
    }

    /** Worth sending again: not an outcome of the aggregate, and nothing parked. */
    static boolean transientFailure(Throwable error) {
        if (error instanceof CommandParkedException) {
            return false;
        }
        if (error instanceof StageNotReachedException notReached) {
            return notReached.reason() == StageNotReachedException.Reason.TIMED_OUT;
        }
        if (error instanceof ExchangeRejectedException rejected) {
            return rejected.reason() == ExchangeRejectedException.Reason.LANE_FULL;
        }
        if (error instanceof UnknownAggregateTypeException) {
            return true; // misconfigured, or not yet registered: keep the deadline rather than lose it
        }
        return error instanceof LanesException lanes && lanes.isRecoverable();
    }

    @Override
    public synchronized String toString() {
        return "DeadlineRunner[" + state + ", fired " + fired + ", retried " + failed + ", parked " + parked + "]";
    }
}
