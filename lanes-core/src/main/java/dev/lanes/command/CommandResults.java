package dev.lanes.command;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.StageNotReachedException.Reason;
import dev.lanes.dispatch.ExchangeRejectedException;
import dev.lanes.internal.Require;
import dev.lanes.messaging.CommandMessage;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Where the senders of commands on this instance wait for their outcome. Senders wait through a {@link CommandGateway};
 * the command side (bus, dispatcher, gateway of this package) reports each command's progress here, and each projection
 * through the one {@link ProjectionListener} it was given ({@link #projection}), and a distributed bus reports the
 * answers of other instances through the one {@link RemoteOutcomes} it was given ({@link #forwardUntracked}). No
 * public method answers a wait: only the components a command passes through can end it.
 *
 * <p><b>Every wait ends</b>, once: with the result at the stage asked for; with the command's failure; with a {@link
 * StageNotReachedException} when a stop, the sender's timeout or a failed projection ends it first (saying how far the
 * command got and whether its events are stored); or with a value when a stop comes after the events were stored and
 * the sender waited for {@code PROCESSED} at most. A command whose events are stored is never answered as rejected.
 *
 * <p><b>Memory</b> is bounded by the commands in flight: an entry ends when its command was processed, failed or
 * stopped, or at the timeout of its last wait (then it is forgotten even if its command is still queued somewhere).
 *
 * <p><b>Idempotency</b>: it also knows which requests are in flight. A send of the same message (same message id and
 * request id) while it is in flight joins it: it gets a wait of its own (its own stage and timeout) on the one
 * dispatch, and the command is not sent again. A send of another message with a request id in flight waits for that
 * entry to end, then sends again (see {@link CommandGateway}).
 *
 * <p>Thread-safety: any thread. Timeouts are timed on the scheduler given at construction (a {@code
 * VirtualTimeScheduler} in tests), by one task at a time for all the waits (see {@link WaitDeadlines}): a wait ends at
 * its deadline, or up to 10 ms after it when deadlines crowd. Answers are emitted on the thread that reports the
 * outcome, never under a lock.
 */
public final class CommandResults {
    /** How long a sender waits when it names no timeout: 30 seconds. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private final Duration defaultTimeout;
    private final Scheduler timer;
    private final ConcurrentHashMap<String, TrackedCommand> byCommandId = new ConcurrentHashMap<>();
    private final WaitDeadlines deadlines;
    private final ConcurrentHashMap<RequestKey, TrackedCommand> byRequest = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<MaterializedNamedAggregate, Set<String>> projectionsByType =
            new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Reason> stoppedProjections = new ConcurrentHashMap<>();
    private final Set<String> declaredProjections = ConcurrentHashMap.newKeySet();
    private volatile UntrackedOutcomes untracked = UntrackedOutcomes.NONE;
    private final AtomicReference<@Nullable String> connectedBus = new AtomicReference<>();

    /**
     * Where the outcomes of commands that no sender on this instance waits for go: a bus whose senders may wait on
     * another instance forwards them there. Called on the thread that reports the outcome; must not block or throw.
     */
    public interface UntrackedOutcomes {
        /** Drops them: a bus whose senders are all on this instance. */
        UntrackedOutcomes NONE = new UntrackedOutcomes() {
            @Override
            public void processed(CommandMessage command, int version, List<Object> events) {}

            @Override
            public void failed(CommandMessage command, Throwable error) {}
        };

        /** As {@link CommandResults#processed}. */
        void processed(CommandMessage command, int version, List<Object> events);

        /**
         * As {@link CommandResults#storedEarlier}. By default as {@link #processed}: the sender's answer then names
         * {@code command} instead of {@code storedBy}.
         */
        default void storedEarlier(CommandMessage command, String storedBy, int version, List<Object> events) {
            processed(command, version, events);
        }

        /** As {@link CommandResults#failed}, for a failure that is not a stop (a stopped command is redelivered). */
        void failed(CommandMessage command, Throwable error);

        /**
         * Projection {@code projection} here handled the events of command {@code commandId}, which no sender here
         * waits for: a bus forwards it to the sender's instance, whose {@code PROJECTED} wait may count on it. Nothing
         * by default.
         */
        default void projected(String commandId, String projection) {}
    }

    /**
     * Where a command bus whose senders may wait on other instances reports what those instances answered for the
     * commands sent from here: each answer ends its sender's wait as if the command had been processed (or had failed)
     * here. Given once, to the bus that connects ({@link #forwardUntracked}). Thread-safety: any thread; never blocks.
     */
    public interface RemoteOutcomes {
        /** {@code command} was processed elsewhere: stored at {@code version} (0 and no events: it changed nothing). */
        void processed(CommandMessage command, int version, List<Object> events);

        /**
         * {@code command}'s request id was stored earlier, by command {@code storedBy}, at {@code version}: the answer
         * elsewhere to a resend. By default as {@link #processed}.
         */
        default void storedEarlier(CommandMessage command, String storedBy, int version, List<Object> events) {
            processed(command, version, events);
        }

        /** {@code command} failed elsewhere with {@code error} (not a stop: a stopped command is redelivered). */
        void failed(CommandMessage command, Throwable error);

        /**
         * Projection {@code projection} handled the events of command {@code commandId} on another instance: a sender
         * here waiting for {@code PROJECTED} counts it as if the projection of that name had run here.
         */
        void projected(String commandId, String projection);
    }

    /** Waits of {@link #DEFAULT_TIMEOUT}, timed on Reactor's parallel scheduler. */
    public CommandResults() {
        this(DEFAULT_TIMEOUT, Schedulers.parallel());
    }

    /**
     * @param defaultTimeout how long a sender waits when it names no timeout
     * @param timer where timeouts are timed; never stopped by this object
     * @throws IllegalArgumentException naming the value if {@code defaultTimeout} is not positive
     */
    public CommandResults(Duration defaultTimeout, Scheduler timer) {
        this.defaultTimeout = Require.positive(defaultTimeout, "defaultTimeout");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.deadlines = new WaitDeadlines(
                timer,
                byCommandId.values(),
                tracked -> apply(tracked, tracked.timedOut(timer.now(TimeUnit.NANOSECONDS))));
    }

    public Duration defaultTimeout() {
        return defaultTimeout;
    }

    /** Where timeouts are timed. */
    Scheduler timer() {
        return timer;
    }

    /**
     * Connects a distributed command bus, once: the outcomes of commands that no sender here waits for go to {@code
     * outcomes} (the bus answers senders on other instances with them), and the returned {@link RemoteOutcomes} is
     * where the bus reports what other instances answered for the senders here. Only the first bus connects: the
     * capability to answer a wait is given out once.
     *
     * @throws IllegalStateException naming the bus already connected, or the in-memory bus these results were given to
     */
    public RemoteOutcomes forwardUntracked(UntrackedOutcomes outcomes) {
        Objects.requireNonNull(outcomes, "outcomes");
        claim(outcomes.toString());
        this.untracked = outcomes;
        return new Remote();
    }

    /** An in-memory bus reports to these results: no distributed bus may connect any more. */
    void servedLocally(String bus) {
        connectedBus.compareAndSet(null, bus);
    }

    private void claim(String bus) {
        if (!connectedBus.compareAndSet(null, bus)) {
            throw new IllegalStateException(
                    this + " already serves " + connectedBus.get() + "; " + bus + " cannot connect to it");
        }
    }

    /** What other instances answered, as if reported here. */
    private final class Remote implements RemoteOutcomes {
        @Override
        public void processed(CommandMessage command, int version, List<Object> events) {
            CommandResults.this.processed(
                    Objects.requireNonNull(command, "command"), version, Objects.requireNonNull(events, "events"));
        }

        @Override
        public void storedEarlier(CommandMessage command, String storedBy, int version, List<Object> events) {
            CommandResults.this.storedEarlier(
                    Objects.requireNonNull(command, "command"),
                    Require.notBlank(storedBy, "storedBy"),
                    version,
                    Objects.requireNonNull(events, "events"));
        }

        @Override
        public void failed(CommandMessage command, Throwable error) {
            CommandResults.this.failed(
                    Objects.requireNonNull(command, "command"), Objects.requireNonNull(error, "error"));
        }

        @Override
        public void projected(String commandId, String projection) {
            TrackedCommand tracked = byCommandId.get(Objects.requireNonNull(commandId, "commandId"));
            if (tracked != null) {
                apply(
                        tracked,
                        tracked.projected(
                                Require.notBlank(projection, "projection"),
                                expectedProjections(tracked.command),
                                stoppedProjections));
            }
        }

        @Override
        public String toString() {
            return "RemoteOutcomes[" + connectedBus.get() + "]";
        }
    }

    /** Commands sent from here with a wait that has not ended (a command sent by several senders counts once). */
    public int inFlight() {
        return byCommandId.size();
    }

    // ---------------------------------------------------------------- the gateway

    /**
     * The wait of a sender of {@code command}, by its {@link TrackedCommand.Wait#role}: {@code SENDS} when no send of
     * its request id (same aggregate) is in flight (the sender sends it now); {@code JOINED} when the same message is
     * in flight (the sender waits for it, at its own stage and timeout, and sends nothing); {@code BEHIND} when another
     * message of the request id is in flight, or this one's last wait just ended (not attached: the sender waits for
     * that entry to end, then sends again).
     *
     * @throws RuntimeException the timer's refusal to time the wait (a disposed scheduler); the wait ended with it
     */
    TrackedCommand.Wait track(CommandMessage command, WaitStage stage, Duration timeout) {
        long deadline = deadlines.deadline(timeout.toNanos());
        TrackedCommand tracked = new TrackedCommand(command, stage, deadline);
        TrackedCommand existing = byRequest.putIfAbsent(tracked.requestKey, tracked);
        if (existing != null) {
            return existing.isFor(command) ? join(existing, stage, deadline) : existing.behind(stage, deadline);
        }
        byCommandId.put(command.messageId(), tracked);
        try {
            deadlines.added(deadline);
        } catch (RuntimeException refused) {
            apply(tracked, tracked.failed(refused));
            throw refused;
        }
        return tracked.first;
    }

    /** A send of the message of {@code existing}, in flight: a wait of its own on it, answered as far as it got. */
    private TrackedCommand.Wait join(TrackedCommand existing, WaitStage stage, long deadline) {
        TrackedCommand.Wait wait = new TrackedCommand.Wait(existing, stage, deadline, TrackedCommand.Wait.Role.JOINED);
        TrackedCommand.Step joined = existing.join(wait, expectedProjections(existing.command), stoppedProjections);
        if (joined == null) {
            return existing.behind(stage, deadline); // its last wait ended meanwhile: the store or a new send answers
        }
        apply(existing, joined);
        try {
            deadlines.added(deadline);
        } catch (RuntimeException refused) {
            apply(existing, existing.leave(wait, refused));
            throw refused;
        }
        return wait;
    }

    // ---------------------------------------------------------------- the command dispatcher

    /**
     * The command's lane began handling it: a sender waiting for {@code SENT} is done (load can no longer refuse it).
     * What the lane reports through the returned progress shapes the answers that follow.
     */
    CommandProgress handling(CommandMessage command) {
        TrackedCommand tracked = byCommandId.get(command.messageId());
        if (tracked == null) {
            return CommandProgress.UNTRACKED;
        }
        apply(tracked, tracked.taken());
        return tracked;
    }

    /** The command's events were appended and published ({@code version} 0 and no events: it changed nothing). */
    void processed(CommandMessage command, int version, List<Object> events) {
        TrackedCommand tracked = byCommandId.get(command.messageId());
        if (tracked != null) {
            apply(tracked, tracked.processed(version, events, expectedProjections(command), stoppedProjections));
        } else {
            untracked.processed(command, version, events);
        }
    }

    /**
     * The command's request id was stored earlier, by command {@code storedBy} (an earlier send of it, or this one):
     * its senders are answered with those events at {@code version}, as processed, the result naming {@code storedBy}.
     */
    void storedEarlier(CommandMessage command, String storedBy, int version, List<Object> events) {
        TrackedCommand tracked = byCommandId.get(command.messageId());
        if (tracked != null) {
            tracked.storedEarlier(storedBy, version, events);
            apply(tracked, tracked.processed(version, events, expectedProjections(command), stoppedProjections));
        } else {
            untracked.storedEarlier(command, storedBy, version, events);
        }
    }

    /**
     * The command failed, was rejected or parked: its sender gets {@code error} unchanged, unless its events are stored
     * (then the stored result), or {@code error} says that its receiver stopped (a dispatcher's rejection because it
     * stopped, or a bus that no longer takes new commands: then the stop, see {@link #stopped}).
     */
    void failed(CommandMessage command, Throwable error) {
        if (error instanceof ExchangeRejectedException rejected && stopReason(rejected) != null) {
            stopped(command, Objects.requireNonNull(stopReason(rejected)), error);
            return;
        }
        if (error instanceof ReceiverStoppedException) {
            stopped(command, Reason.STOPPED, error);
            return;
        }
        TrackedCommand tracked = byCommandId.get(command.messageId());
        if (tracked != null) {
            apply(tracked, tracked.failed(error));
        } else {
            untracked.failed(command, error);
        }
    }

    /**
     * A stop ended the command's wait before its stage: the sender learns how far it got (see {@link
     * StageNotReachedException}). If its lane had not begun the append, the append will not happen.
     */
    void stopped(CommandMessage command, Reason reason, @Nullable Throwable cause) {
        TrackedCommand tracked = byCommandId.get(command.messageId());
        if (tracked != null) {
            apply(tracked, tracked.stopped(reason, cause));
        }
    }

    private static @Nullable Reason stopReason(ExchangeRejectedException rejected) {
        return switch (rejected.reason()) {
            case FORCED -> Reason.FORCED;
            case STOPPING, ADMISSION_CLOSED -> Reason.STOPPED;
            case LANE_FULL, UNROUTABLE, FAULT -> null;
        };
    }

    // ---------------------------------------------------------------- projections

    /**
     * Declares projection {@code name} of the events of {@code types} and returns the listener through which it
     * reports: from now on, a sender waiting for {@code PROJECTED} on a command of one of these types waits for it too.
     * The event side calls this once per projection, when it is built ({@code
     * CompositeEventDispatcher.Builder.commandResults}), and hands the listener to the projection's dispatcher.
     *
     * @throws IllegalArgumentException naming the projection when it was declared before: its listener was given out
     *     already
     */
    public ProjectionListener projection(String name, Set<? extends NamedAggregate> types) {
        Require.notBlank(name, "name");
        Objects.requireNonNull(types, "types");
        if (!declaredProjections.add(name)) {
            throw new IllegalArgumentException(
                    "projection '" + name + "' is declared already in " + this + ": its listener was given out");
        }
        types.forEach(type -> expectProjections(type, Set.of(name)));
        return new Projection(name);
    }

    /** One projection's reports, as the calls below. */
    private final class Projection implements ProjectionListener {
        private final String name;

        Projection(String name) {
            this.name = name;
        }

        @Override
        public void projected(String commandId) {
            CommandResults.this.projected(Objects.requireNonNull(commandId, "commandId"), name);
        }

        @Override
        public void failed(String commandId, Throwable error) {
            projectionFailed(
                    Objects.requireNonNull(commandId, "commandId"), name, Objects.requireNonNull(error, "error"));
        }

        @Override
        public void stopped(Reason reason) {
            projectionStopped(name, reason);
        }

        @Override
        public String toString() {
            return "ProjectionListener[" + name + "]";
        }
    }

    /**
     * Declares the projections that handle the events of {@code namedAggregate}: a sender waiting for {@code
     * PROJECTED} waits for all of them.
     */
    void expectProjections(NamedAggregate namedAggregate, Set<String> projections) {
        projectionsByType.merge(namedAggregate.materialize(), Set.copyOf(projections), (a, b) -> {
            Set<String> union = new HashSet<>(a);
            union.addAll(b);
            return Set.copyOf(union);
        });
    }

    /**
     * A projection handled the events of command {@code commandId} (it may come before {@link #processed}); when no
     * sender here waits for it, the connected bus may forward it to the sender's instance.
     */
    void projected(String commandId, String projection) {
        TrackedCommand tracked = byCommandId.get(commandId);
        if (tracked != null) {
            apply(tracked, tracked.projected(projection, expectedProjections(tracked.command), stoppedProjections));
        } else {
            untracked.projected(commandId, projection);
        }
    }

    /** A projection gave up on the events of command {@code commandId}: its {@code PROJECTED} sender is told. */
    void projectionFailed(String commandId, String projection, Throwable error) {
        TrackedCommand tracked = byCommandId.get(commandId);
        if (tracked != null) {
            apply(tracked, tracked.projectionFailed(error));
        }
    }

    /**
     * A projection stopped: every {@code PROJECTED} wait on it whose events it has not handled ends with a {@link
     * StageNotReachedException} of {@code reason} (at once when the events are stored, else when they are).
     */
    void projectionStopped(String projection, Reason reason) {
        Objects.requireNonNull(reason, "reason");
        stoppedProjections.putIfAbsent(Require.notBlank(projection, "projection"), reason);
        for (TrackedCommand tracked : byCommandId.values()) {
            apply(tracked, tracked.projectionStopped(expectedProjections(tracked.command), stoppedProjections));
        }
    }

    private Set<String> expectedProjections(CommandMessage command) {
        return projectionsByType.getOrDefault(command.aggregateId().materialize(), Set.of());
    }

    // ---------------------------------------------------------------- applying decisions

    private void apply(TrackedCommand tracked, TrackedCommand.Step step) {
        if (step.ends()) {
            byCommandId.remove(tracked.command.messageId(), tracked);
            byRequest.remove(tracked.requestKey, tracked);
        }
        Runnable answer = step.answer();
        if (answer != null) {
            answer.run();
        }
        if (step.ends()) {
            tracked.finish();
        }
    }

    /** A request id is unique per aggregate: the key of the senders' waits, compared without building a string. */
    record RequestKey(AggregateId aggregateId, String requestId) {}

    @Override
    public String toString() {
        return "CommandResults[in flight " + byCommandId.size() + ", default timeout " + defaultTimeout + "]";
    }
}
