package dev.lanes.command;

import dev.lanes.api.RecoverableException;
import dev.lanes.messaging.CommandMessage;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A sender's wait ended before the stage it asked for: the runtime stopped (gracefully or by force), the wait timed
 * out, the command failed after an append the store did not confirm, or a projection gave up on the command's events.
 * It is not a rejection: it says how far the command got and whether its events are stored.
 *
 * <p>What to do: send the command again with the <em>same</em> request id. If it was stored, the gateway answers at once
 * with what it stored ({@link #storage()} {@code STORED} or {@code UNKNOWN}); if not, it is processed. A fresh request
 * id would apply a stored command twice.
 */
public final class StageNotReachedException extends RecoverableException {
    private static final long serialVersionUID = 1L;

    /** Why the wait ended early. */
    public enum Reason {
        /** A force stop (or the shutdown deadline) cut the command or the stage it waited for. */
        FORCED,
        /** A graceful stop: the command or the stage it waited for was no longer taken. */
        STOPPED,
        /** The sender's timeout elapsed first. */
        TIMED_OUT,
        /** A projection parked the command's events after its retries; the cause is its last error. */
        PROJECTION_FAILED,
        /**
         * The command's retries ran out after an append whose outcome the store did not confirm (a connection lost
         * during the commit); the cause is the last error.
         */
        APPEND_UNCONFIRMED
    }

    /** What the event store holds for the command. */
    public enum Storage {
        /** Nothing, and nothing will be appended for this send: safe to send again. */
        NOT_STORED,
        /** Its events are stored: {@link #stored()} says at which version. */
        STORED,
        /**
         * Cannot be known here: the append was under way when the wait ended, or the command was still queued when
         * the wait timed out (it may still be processed). Send it again with the same request id to learn.
         */
        UNKNOWN
    }

    private final Reason reason;
    private final WaitStage requested;
    private final @Nullable WaitStage reached;
    private final Storage storage;
    private final transient @Nullable CommandResult stored;

    StageNotReachedException(
            CommandMessage command,
            Reason reason,
            WaitStage requested,
            @Nullable WaitStage reached,
            Storage storage,
            @Nullable CommandResult stored,
            @Nullable Throwable cause) {
        super(message(command, reason, requested, reached, storage, stored));
        if (cause != null) {
            initCause(cause);
        }
        this.reason = Objects.requireNonNull(reason, "reason");
        this.requested = requested;
        this.reached = reached;
        this.storage = storage;
        this.stored = stored;
    }

    public Reason reason() {
        return reason;
    }

    /** The stage the sender asked for. */
    public WaitStage requested() {
        return requested;
    }

    /**
     * The last stage the command reached: {@code PROCESSED} when its events are stored, {@code SENT} when its lane had
     * taken it, {@code null} when it still waited in the bus.
     */
    public @Nullable WaitStage reached() {
        return reached;
    }

    public Storage storage() {
        return storage;
    }

    /** The stored version and events when {@link #storage()} is {@code STORED}; {@code null} otherwise. */
    public @Nullable CommandResult stored() {
        return stored;
    }

    private static String message(
            CommandMessage command,
            Reason reason,
            WaitStage requested,
            @Nullable WaitStage reached,
            Storage storage,
            @Nullable CommandResult stored) {
        String why = switch (reason) {
            case FORCED -> "the runtime was force-stopped";
            case STOPPED -> "the runtime stopped";
            case TIMED_OUT -> "the wait timed out";
            case PROJECTION_FAILED -> "a projection gave up on its events";
            case APPEND_UNCONFIRMED -> "it failed after an append the store did not confirm";
        };
        String what = switch (storage) {
            case NOT_STORED -> "nothing is stored; send it again with the same request id";
            case STORED ->
                "its events are stored"
                        + (stored == null ? "" : " (version " + stored.version() + ")")
                        + "; do not send it again with a new request id";
            case UNKNOWN ->
                "whether it is stored cannot be known here; send it again with the same request"
                        + " id to learn its outcome";
        };
        String where = reached == null ? " while it waited in the bus" : " after it reached " + reached;
        return command + " did not reach " + requested + ": " + why + where + "; " + what;
    }
}
