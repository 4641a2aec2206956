package dev.lanes.command;

import dev.lanes.command.StageNotReachedException.Reason;
import dev.lanes.command.StageNotReachedException.Storage;
import dev.lanes.messaging.CommandMessage;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One command a sender waits for, from send to the end of its wait. Every decision (answer, end) is taken under this
 * object's monitor and returned as a {@link Step}; {@link CommandResults} applies it outside the monitor, so a sender's
 * continuation never runs under a lock. The sender's outcome is emitted at most once; the entry ends once.
 */
final class TrackedCommand implements CommandProgress {

    /** How far the command got, as far as this instance knows. */
    private enum Progress {
        QUEUED,
        HANDLING,
        APPENDING,
        STORED
    }

    /** What to do after a decision: whether the entry ends, and the answer to emit (if any). */
    record Step(boolean ends, @Nullable Runnable answer) {
        static final Step NONE = new Step(false, null);
    }

    final CommandMessage command;
    final WaitStage stage;
    /** When the sender's timeout ends the wait, on the timer's clock (see {@link WaitDeadlines}). */
    final long deadline;

    final CommandResults.RequestKey requestKey;
    // emitted once each (an answer is made once, under this object's lock, and the end once): no serializing wrapper
    private final Sinks.One<CommandResult> outcome = Sinks.unsafe().one();
    /** Made for a second send of the same request only (most commands have none); guarded by this object. */
    private Sinks.@Nullable Empty<Void> ended;

    private boolean finished;
    /** The projections that handled the events; made on the first, as most waits are not for {@code PROJECTED}. */
    private @Nullable Set<String> projectedBy;

    private Progress progress = Progress.QUEUED;
    private boolean answered;
    private boolean done;
    private boolean appendRefused;
    private @Nullable CommandResult storedResult;

    TrackedCommand(CommandMessage command, WaitStage stage, long deadline) {
        this.command = command;
        this.stage = stage;
        this.deadline = deadline;
        this.requestKey = new CommandResults.RequestKey(command.aggregateId(), command.requestId());
    }

    boolean isFor(CommandMessage other) {
        return command.messageId().equals(other.messageId());
    }

    Mono<CommandResult> outcome() {
        return outcome.asMono();
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

    // ---------------------------------------------------------------- decisions

    /** The lane began handling the command: a {@code SENT} wait is done. */
    synchronized Step taken() {
        if (progress == Progress.QUEUED) {
            progress = Progress.HANDLING;
        }
        if (done || answered || stage != WaitStage.SENT) {
            return Step.NONE;
        }
        return new Step(false, value(result(WaitStage.SENT, 0, List.of())));
    }

    /** Processed: stored at {@code version} (or unchanged, with no events). */
    synchronized Step processed(
            int version, List<Object> events, Set<String> projections, Map<String, Reason> stopped) {
        if (done) {
            return Step.NONE;
        }
        progress = Progress.STORED;
        if (storedResult == null || storedResult.version() != version) { // the lane reported it at the append already
            storedResult = result(WaitStage.PROCESSED, version, events);
        }
        if (stage != WaitStage.PROJECTED || events.isEmpty() || projections.isEmpty()) {
            return end(value(storedResult));
        }
        return projectedOrStopped(projections, stopped);
    }

    synchronized Step projected(String projection, Set<String> projections, Map<String, Reason> stopped) {
        if (done || stage != WaitStage.PROJECTED) {
            return Step.NONE;
        }
        if (projectedBy == null) {
            projectedBy = new HashSet<>();
        }
        projectedBy.add(projection);
        return storedResult == null ? Step.NONE : projectedOrStopped(projections, stopped);
    }

    /** A projection stopped: ends the wait if the events are stored and that projection has not handled them. */
    synchronized Step projectionStopped(Set<String> projections, Map<String, Reason> stopped) {
        if (done || stage != WaitStage.PROJECTED || storedResult == null) {
            return Step.NONE;
        }
        return projectedOrStopped(projections, stopped);
    }

    private Step projectedOrStopped(Set<String> projections, Map<String, Reason> stopped) {
        CommandResult stored = java.util.Objects.requireNonNull(storedResult, "storedResult");
        Set<String> handled = projectedBy != null ? projectedBy : Set.of();
        if (handled.containsAll(projections)) {
            return end(value(result(WaitStage.PROJECTED, stored.version(), stored.events())));
        }
        for (String projection : projections) {
            Reason reason = stopped.get(projection);
            if (reason != null && !handled.contains(projection)) {
                return end(notReached(reason, WaitStage.PROCESSED, Storage.STORED, null));
            }
        }
        return Step.NONE;
    }

    synchronized Step projectionFailed(Throwable error) {
        if (done || stage != WaitStage.PROJECTED) {
            return Step.NONE;
        }
        return end(notReached(Reason.PROJECTION_FAILED, WaitStage.PROCESSED, Storage.STORED, error));
    }

    /**
     * The command failed (its handler refused it, it was parked, the bus refused it): the error, unless its last append
     * was not confirmed by the store (then whether it is stored is unknown).
     */
    synchronized Step failed(Throwable error) {
        if (done) {
            return Step.NONE;
        }
        if (progress == Progress.STORED && storedResult != null) {
            return stage == WaitStage.PROJECTED ? Step.NONE : end(value(storedResult));
        }
        if (progress == Progress.APPENDING) {
            return end(notReached(Reason.APPEND_UNCONFIRMED, reached(), Storage.UNKNOWN, error));
        }
        return end(error(error));
    }

    /** A stop ended the command's wait; what the sender is told follows from how far the command got. */
    synchronized Step stopped(Reason reason, @Nullable Throwable cause) {
        if (done) {
            return Step.NONE;
        }
        return switch (progress) {
            case STORED ->
                stage == WaitStage.PROJECTED
                        ? end(notReached(reason, WaitStage.PROCESSED, Storage.STORED, cause))
                        : end(value(java.util.Objects.requireNonNull(storedResult, "storedResult")));
            case APPENDING -> end(notReached(reason, WaitStage.SENT, Storage.UNKNOWN, cause));
            case QUEUED, HANDLING -> {
                appendRefused = true; // the sender hears "not stored": the lane, if it still runs, must not append
                yield end(notReached(reason, reached(), Storage.NOT_STORED, cause));
            }
        };
    }

    /** The sender's timeout elapsed. */
    synchronized Step timedOut() {
        if (done) {
            return Step.NONE;
        }
        if (progress == Progress.STORED && storedResult != null) {
            return stage == WaitStage.PROJECTED
                    ? end(notReached(Reason.TIMED_OUT, WaitStage.PROCESSED, Storage.STORED, null))
                    : end(value(storedResult));
        }
        return end(notReached(Reason.TIMED_OUT, reached(), Storage.UNKNOWN, null));
    }

    // ---------------------------------------------------------------- answers

    private Step end(@Nullable Runnable answer) {
        done = true;
        return new Step(true, answer);
    }

    /** The answer, unless the sender already has one (a {@code SENT} wait ends at send). */
    private @Nullable Runnable value(CommandResult result) {
        if (answered) {
            return null;
        }
        answered = true;
        return () -> outcome.tryEmitValue(result);
    }

    private @Nullable Runnable error(Throwable error) {
        if (answered) {
            return null;
        }
        answered = true;
        return () -> outcome.tryEmitError(error);
    }

    /** The stage the command reached as far as its sender is concerned; {@code null} while it waits in the bus. */
    private @Nullable WaitStage reached() {
        return switch (progress) {
            case QUEUED -> null;
            case HANDLING, APPENDING -> WaitStage.SENT;
            case STORED -> WaitStage.PROCESSED;
        };
    }

    private @Nullable Runnable notReached(
            Reason reason, @Nullable WaitStage reached, Storage storage, @Nullable Throwable cause) {
        CommandResult stored = storage == Storage.STORED ? storedResult : null;
        return error(new StageNotReachedException(command, reason, stage, reached, storage, stored, cause));
    }

    private CommandResult result(WaitStage reached, int version, List<Object> events) {
        return new CommandResult(
                command.messageId(), command.requestId(), command.aggregateId(), reached, version, events);
    }

    @Override
    public String toString() {
        return "TrackedCommand[" + command + ", waits for " + stage + "]";
    }
}
