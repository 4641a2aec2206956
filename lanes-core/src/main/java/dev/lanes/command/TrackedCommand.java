package dev.lanes.command;

import dev.lanes.command.StageNotReachedException.Reason;
import dev.lanes.command.StageNotReachedException.Storage;
import dev.lanes.messaging.CommandMessage;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One command sent from here, from its first send to the end of the last wait on it: how far it got, as far as this
 * instance knows, and the waits of its senders. The first send of a message dispatches it; a send of the same message
 * (same message id and request id) while it is in flight {@linkplain #join joins} it with a {@link Wait} of its own
 * (its own stage and deadline) and is not dispatched again. Every decision (answer, end) is taken under this object's
 * monitor and returned as a {@link Step}; {@link CommandResults} applies it outside the monitor, so a sender's
 * continuation never runs under a lock. Each wait's outcome is emitted at most once; the entry ends once, when its last
 * wait ended.
 */
final class TrackedCommand implements CommandProgress {

    /** How far the command got, as far as this instance knows. */
    private enum Progress {
        QUEUED,
        HANDLING,
        APPENDING,
        STORED
    }

    /** What to do after a decision: whether the entry ends, and the answers to emit (if any). */
    record Step(boolean ends, @Nullable Runnable answer) {
        static final Step NONE = new Step(false, null);
    }

    /**
     * One sender's wait: its stage, its deadline and its outcome. The fields past the constructor are guarded by the
     * entry's monitor.
     */
    static final class Wait {
        /** What the sender does with it. */
        enum Role {
            /** The first send of the message in flight here: the sender dispatches it. */
            SENDS,
            /** The same message is in flight here: the sender waits for it at its own stage and dispatches nothing. */
            JOINED,
            /**
             * Another message of the request id is in flight here, or this message's last wait just ended: the wait is
             * not attached to the entry; the sender waits for the entry to end ({@link TrackedCommand#ended}), then
             * sends again (the store answers a request id it holds).
             */
            BEHIND
        }

        final TrackedCommand entry;
        final WaitStage stage;
        /** When the sender's timeout ends the wait, on the timer's clock (see {@link WaitDeadlines}). */
        final long deadline;

        final Role role;
        // emitted once (an answer is made once, under the entry's lock): no serializing wrapper
        private final Sinks.One<CommandResult> outcome = Sinks.unsafe().one();
        private boolean answered;
        private boolean done;

        Wait(TrackedCommand entry, WaitStage stage, long deadline, Role role) {
            this.entry = entry;
            this.stage = stage;
            this.deadline = deadline;
            this.role = role;
        }

        Mono<CommandResult> outcome() {
            return outcome.asMono();
        }

        @Override
        public String toString() {
            return "Wait[" + entry.command + ", " + role + ", waits for " + stage + "]";
        }
    }

    final CommandMessage command;
    final CommandResults.RequestKey requestKey;
    /** The wait of the sender that dispatches the command. */
    final Wait first;
    /**
     * The earliest deadline among the waits that have not ended (the first's unless a joined wait ends sooner), on the
     * timer's clock; read by {@link WaitDeadlines}, written under this object's monitor.
     */
    volatile long deadline;

    /** Made for a second send of the same request only (most commands have none); guarded by this object. */
    private Sinks.@Nullable Empty<Void> ended;

    private boolean finished;
    /** The waits of the senders that joined (most commands have none); guarded by this object. */
    private @Nullable List<Wait> joined;
    /**
     * The projections that handled the events; made on the first report (a {@code PROJECTED} wait may join after
     * some projections reported).
     */
    private @Nullable Set<String> projectedBy;

    private Progress progress = Progress.QUEUED;
    /** {@link #processed} came: a wait that joins now is answered at once unless it waits for projections. */
    private boolean processed;
    /** Every wait ended: the entry is done and no wait joins it any more. */
    private boolean done;

    private boolean appendRefused;
    private @Nullable CommandResult storedResult;

    TrackedCommand(CommandMessage command, WaitStage stage, long deadline) {
        this.command = command;
        this.requestKey = new CommandResults.RequestKey(command.aggregateId(), command.requestId());
        this.first = new Wait(this, stage, deadline, Wait.Role.SENDS);
        this.deadline = deadline;
    }

    /** Whether {@code other} is this entry's message (the same message id), which a send of it joins. */
    boolean isFor(CommandMessage other) {
        return command.messageId().equals(other.messageId());
    }

    /** The first sender's outcome. */
    Mono<CommandResult> outcome() {
        return first.outcome();
    }

    /** A wait that is not attached to this entry: see {@link Wait.Role#BEHIND}. */
    Wait behind(WaitStage stage, long deadline) {
        return new Wait(this, stage, deadline, Wait.Role.BEHIND);
    }

    /** Completes when this entry ended, however. */
    Mono<Void> ended() {
        synchronized (this) {
            if (!finished) {
                if (ended == null) {
                    ended = Sinks.unsafe().empty();
                }
                return ended.asMono();
            }
        }
        return Mono.empty();
    }

    /** After a {@link Step} that ends: signals the end. */
    void finish() {
        Sinks.Empty<Void> waiting;
        synchronized (this) {
            finished = true;
            waiting = ended;
        }
        if (waiting != null) {
            waiting.tryEmitEmpty();
        }
    }

    /**
     * A send of the same message joins with {@code wait} ({@link Wait.Role#JOINED}, made for this entry): it is
     * answered from how far the command got (at once if that reached its stage) and by every report that follows.
     * {@code null} when the entry ended already: then the wait is not attached.
     */
    synchronized @Nullable Step join(Wait wait, Set<String> projections, Map<String, Reason> stopped) {
        if (done) {
            return null;
        }
        if (joined == null) {
            joined = new ArrayList<>(2);
        }
        joined.add(wait);
        if (wait.deadline - deadline < 0) {
            deadline = wait.deadline;
        }
        Runnable answer;
        if (processed) {
            answer = processed(wait, projections, stopped);
        } else if (wait.stage == WaitStage.PROJECTED && storedResult != null) {
            answer = projectedOrStopped(wait, projections, stopped);
        } else {
            answer = progress == Progress.QUEUED ? null : sent(wait);
        }
        return step(answer);
    }

    // ---------------------------------------------------------------- progress (the command's lane)

    @Override
    public synchronized boolean beginAppend() {
        if (appendRefused) {
            return false;
        }
        progress = Progress.APPENDING;
        return true;
    }

    @Override
    public synchronized void appendFailed(boolean definitive) {
        if (definitive && progress == Progress.APPENDING) {
            progress = Progress.HANDLING;
        }
    }

    @Override
    public synchronized void stored(int version, List<Object> events) {
        progress = Progress.STORED;
        storedResult = result(WaitStage.PROCESSED, version, events);
    }

    @Override
    public synchronized void storedEarlier(String commandId, int version, List<Object> events) {
        progress = Progress.STORED;
        storedResult = new CommandResult(
                commandId, command.requestId(), command.aggregateId(), WaitStage.PROCESSED, version, events);
    }

    // ---------------------------------------------------------------- decisions, each for every wait not ended

    /** The lane began handling the command: a {@code SENT} wait is done. */
    synchronized Step taken() {
        if (progress == Progress.QUEUED) {
            progress = Progress.HANDLING;
        }
        if (done) {
            return Step.NONE;
        }
        Runnable answer = sent(first);
        if (joined != null) {
            for (Wait wait : joined) {
                answer = both(answer, sent(wait));
            }
        }
        return step(answer);
    }

    /** Processed: stored at {@code version} (or unchanged, with no events). */
    synchronized Step processed(
            int version, List<Object> events, Set<String> projections, Map<String, Reason> stopped) {
        if (done) {
            return Step.NONE;
        }
        progress = Progress.STORED;
        processed = true;
        if (storedResult == null || storedResult.version() != version) { // the lane reported it at the append already
            storedResult = result(WaitStage.PROCESSED, version, events);
        }
        Runnable answer = processed(first, projections, stopped);
        if (joined != null) {
            for (Wait wait : joined) {
                answer = both(answer, processed(wait, projections, stopped));
            }
        }
        return step(answer);
    }

    synchronized Step projected(String projection, Set<String> projections, Map<String, Reason> stopped) {
        if (done) {
            return Step.NONE;
        }
        if (projectedBy == null) {
            projectedBy = new HashSet<>();
        }
        projectedBy.add(projection);
        return storedResult == null ? Step.NONE : projectedOrStopped(projections, stopped);
    }

    /** A projection stopped: ends the waits on it if the events are stored and that projection has not handled them. */
    synchronized Step projectionStopped(Set<String> projections, Map<String, Reason> stopped) {
        if (done || storedResult == null) {
            return Step.NONE;
        }
        return projectedOrStopped(projections, stopped);
    }

    private Step projectedOrStopped(Set<String> projections, Map<String, Reason> stopped) {
        Runnable answer = projectedOrStopped(first, projections, stopped);
        if (joined != null) {
            for (Wait wait : joined) {
                answer = both(answer, projectedOrStopped(wait, projections, stopped));
            }
        }
        return step(answer);
    }

    synchronized Step projectionFailed(Throwable error) {
        if (done) {
            return Step.NONE;
        }
        Runnable answer = projectionFailed(first, error);
        if (joined != null) {
            for (Wait wait : joined) {
                answer = both(answer, projectionFailed(wait, error));
            }
        }
        return step(answer);
    }

    /**
     * The command failed (its handler refused it, it was parked, the bus refused it): the error, unless its last append
     * was not confirmed by the store (then whether it is stored is unknown).
     */
    synchronized Step failed(Throwable error) {
        if (done) {
            return Step.NONE;
        }
        Runnable answer = failedWait(first, error);
        if (joined != null) {
            for (Wait wait : joined) {
                answer = both(answer, failedWait(wait, error));
            }
        }
        return step(answer);
    }

    /** Ends one joined wait with {@code error}, the others going on (its deadline could not be timed). */
    synchronized Step leave(Wait wait, Throwable error) {
        return wait.done ? Step.NONE : step(end(wait, error(wait, error)));
    }

    /** A stop ended the command's waits; what the senders are told follows from how far the command got. */
    synchronized Step stopped(Reason reason, @Nullable Throwable cause) {
        if (done) {
            return Step.NONE;
        }
        Runnable answer = stopped(first, reason, cause);
        if (joined != null) {
            for (Wait wait : joined) {
                answer = both(answer, stopped(wait, reason, cause));
            }
        }
        return step(answer);
    }

    /** The timeouts of the waits whose deadline is {@code now} or before elapsed ({@code now} on the timer's clock). */
    synchronized Step timedOut(long now) {
        if (done) {
            return Step.NONE;
        }
        Runnable answer = timedOut(first, now);
        if (joined != null) {
            for (Wait wait : joined) {
                answer = both(answer, timedOut(wait, now));
            }
        }
        Step step = step(answer);
        if (!done) {
            deadline = nextDeadline();
        }
        return step;
    }

    // ---------------------------------------------------------------- each wait

    private @Nullable Runnable sent(Wait wait) {
        return wait.done || wait.stage != WaitStage.SENT ? null : value(wait, result(WaitStage.SENT, 0, List.of()));
    }

    private @Nullable Runnable processed(Wait wait, Set<String> projections, Map<String, Reason> stopped) {
        CommandResult stored = Objects.requireNonNull(storedResult, "storedResult");
        if (wait.done) {
            return null;
        }
        if (wait.stage != WaitStage.PROJECTED || stored.events().isEmpty() || projections.isEmpty()) {
            return end(wait, value(wait, stored));
        }
        return projectedOrStopped(wait, projections, stopped);
    }

    private @Nullable Runnable projectedOrStopped(Wait wait, Set<String> projections, Map<String, Reason> stopped) {
        if (wait.done || wait.stage != WaitStage.PROJECTED) {
            return null;
        }
        CommandResult stored = Objects.requireNonNull(storedResult, "storedResult");
        Set<String> handled = projectedBy != null ? projectedBy : Set.of();
        if (handled.containsAll(projections)) {
            return end(wait, value(wait, result(WaitStage.PROJECTED, stored.version(), stored.events())));
        }
        for (String projection : projections) {
            Reason reason = stopped.get(projection);
            if (reason != null && !handled.contains(projection)) {
                return end(wait, notReached(wait, reason, WaitStage.PROCESSED, Storage.STORED, null));
            }
        }
        return null;
    }

    private @Nullable Runnable projectionFailed(Wait wait, Throwable error) {
        if (wait.done || wait.stage != WaitStage.PROJECTED) {
            return null;
        }
        return end(wait, notReached(wait, Reason.PROJECTION_FAILED, WaitStage.PROCESSED, Storage.STORED, error));
    }

    private @Nullable Runnable failedWait(Wait wait, Throwable error) {
        if (wait.done) {
            return null;
        }
        if (progress == Progress.STORED && storedResult != null) {
            return wait.stage == WaitStage.PROJECTED ? null : end(wait, value(wait, storedResult));
        }
        if (progress == Progress.APPENDING) {
            return end(wait, notReached(wait, Reason.APPEND_UNCONFIRMED, reached(), Storage.UNKNOWN, error));
        }
        return end(wait, error(wait, error));
    }

    private @Nullable Runnable stopped(Wait wait, Reason reason, @Nullable Throwable cause) {
        if (wait.done) {
            return null;
        }
        return switch (progress) {
            case STORED ->
                wait.stage == WaitStage.PROJECTED
                        ? end(wait, notReached(wait, reason, WaitStage.PROCESSED, Storage.STORED, cause))
                        : end(wait, value(wait, Objects.requireNonNull(storedResult, "storedResult")));
            case APPENDING -> end(wait, notReached(wait, reason, WaitStage.SENT, Storage.UNKNOWN, cause));
            case QUEUED, HANDLING -> {
                appendRefused = true; // the sender hears "not stored": the lane, if it still runs, must not append
                yield end(wait, notReached(wait, reason, reached(), Storage.NOT_STORED, cause));
            }
        };
    }

    private @Nullable Runnable timedOut(Wait wait, long now) {
        if (wait.done || wait.deadline - now > 0) {
            return null;
        }
        if (progress == Progress.STORED && storedResult != null) {
            return wait.stage == WaitStage.PROJECTED
                    ? end(wait, notReached(wait, Reason.TIMED_OUT, WaitStage.PROCESSED, Storage.STORED, null))
                    : end(wait, value(wait, storedResult));
        }
        return end(wait, notReached(wait, Reason.TIMED_OUT, reached(), Storage.UNKNOWN, null));
    }

    // ---------------------------------------------------------------- steps and answers

    /** The step after a decision: the entry ends once every wait ended. */
    private Step step(@Nullable Runnable answer) {
        if (!done && allEnded()) {
            done = true;
            return new Step(true, answer);
        }
        return answer == null ? Step.NONE : new Step(false, answer);
    }

    private boolean allEnded() {
        if (!first.done) {
            return false;
        }
        if (joined != null) {
            for (Wait wait : joined) {
                if (!wait.done) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The earliest deadline among the waits not ended; the entry has one. */
    private long nextDeadline() {
        long next = first.deadline;
        boolean found = !first.done;
        if (joined != null) {
            for (Wait wait : joined) {
                if (!wait.done && (!found || wait.deadline - next < 0)) {
                    next = wait.deadline;
                    found = true;
                }
            }
        }
        return next;
    }

    /** Both answers, in order; no combined one is made unless both exist (a command with joined senders). */
    private static @Nullable Runnable both(@Nullable Runnable first, @Nullable Runnable second) {
        if (first == null) {
            return second;
        }
        if (second == null) {
            return first;
        }
        return () -> {
            first.run();
            second.run();
        };
    }

    private static @Nullable Runnable end(Wait wait, @Nullable Runnable answer) {
        wait.done = true;
        return answer;
    }

    /** The answer, unless the sender already has one (a {@code SENT} wait ends at send). */
    private static @Nullable Runnable value(Wait wait, CommandResult result) {
        if (wait.answered) {
            return null;
        }
        wait.answered = true;
        return () -> wait.outcome.tryEmitValue(result);
    }

    private static @Nullable Runnable error(Wait wait, Throwable error) {
        if (wait.answered) {
            return null;
        }
        wait.answered = true;
        return () -> wait.outcome.tryEmitError(error);
    }

    /** The stage the command reached as far as its senders are concerned; {@code null} while it waits in the bus. */
    private @Nullable WaitStage reached() {
        return switch (progress) {
            case QUEUED -> null;
            case HANDLING, APPENDING -> WaitStage.SENT;
            case STORED -> WaitStage.PROCESSED;
        };
    }

    private @Nullable Runnable notReached(
            Wait wait, Reason reason, @Nullable WaitStage reached, Storage storage, @Nullable Throwable cause) {
        CommandResult stored = storage == Storage.STORED ? storedResult : null;
        return error(wait, new StageNotReachedException(command, reason, wait.stage, reached, storage, stored, cause));
    }

    private CommandResult result(WaitStage reached, int version, List<Object> events) {
        return new CommandResult(
                command.messageId(), command.requestId(), command.aggregateId(), reached, version, events);
    }

    @Override
    public String toString() {
        return "TrackedCommand[" + command + ", first sender waits for " + first.stage + "]";
    }
}
