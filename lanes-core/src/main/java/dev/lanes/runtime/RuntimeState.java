package dev.lanes.runtime;

import static dev.lanes.runtime.LanesRuntime.State.NEW;
import static dev.lanes.runtime.LanesRuntime.State.RUNNING;
import static dev.lanes.runtime.LanesRuntime.State.STARTING;
import static dev.lanes.runtime.LanesRuntime.State.STOPPED;
import static dev.lanes.runtime.LanesRuntime.State.STOPPING;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One snapshot of a {@link LanesRuntime}'s lifecycle: its phase, what its startup entered, whether a force began, and
 * the instants of its stop. Immutable: the runtime holds the current snapshot in one {@code AtomicReference} and moves
 * it only by compare-and-set to the snapshot a transition below computes, so the phase, the flags and the instants
 * never disagree, and each transition is won by exactly one caller, which then performs its effects.
 *
 * <p>A transition returns the next snapshot, or {@code null} when it does not apply to this one (another caller got
 * there first, or it is already done). {@link #starting()} throws instead: starting twice is misuse. Instants are
 * nanoseconds of the runtime's one clock.
 *
 * @param phase where the lifecycle is
 * @param entered how many components, in registration order, the startup entered (began to prepare)
 * @param forced whether a force began (the deadline, an explicit force, a failed stop); then only the force ends it
 * @param stopBeganAt when the stop was requested; while {@code STARTING}, a stop waits for the startup to give way
 * @param admissionClosedAt when admission closed on the graceful path
 * @param drainedAt when the last lease admitted before the close ended, on the graceful path
 * @param stoppedAt when the runtime stopped
 * @param cut leases open when the force began
 */
record RuntimeState(
        LanesRuntime.State phase,
        int entered,
        boolean forced,
        @Nullable Long stopBeganAt,
        @Nullable Long admissionClosedAt,
        @Nullable Long drainedAt,
        @Nullable Long stoppedAt,
        long cut) {

    static final RuntimeState INITIAL = new RuntimeState(NEW, 0, false, null, null, null, null, 0);

    RuntimeState {
        Objects.requireNonNull(phase, "phase");
    }

    /** NEW to STARTING. */
    RuntimeState starting() {
        if (phase != NEW) {
            throw new IllegalStateException("LanesRuntime can only be started once; current state: " + describe());
        }
        return new RuntimeState(STARTING, 0, false, null, null, null, null, 0);
    }

    /** The startup enters the component at {@code index} (begins to prepare it), unless a stop came first. */
    @Nullable
    RuntimeState entering(int index) {
        if (!startupGoesOn() || entered != index) {
            return null;
        }
        return new RuntimeState(phase, index + 1, forced, stopBeganAt, admissionClosedAt, drainedAt, stoppedAt, cut);
    }

    /** STARTING to RUNNING, unless a stop came first. */
    @Nullable
    RuntimeState running() {
        return startupGoesOn() ? withPhase(RUNNING) : null;
    }

    /** Whether the startup may take its next step: STARTING, and no stop (nor force) requested. */
    boolean startupGoesOn() {
        return phase == STARTING && stopBeganAt == null;
    }

    /**
     * A stop is requested: NEW stops at once (nothing was started), STARTING notes the request and keeps its phase until
     * the startup gives way ({@link #rollingBack}), RUNNING begins to stop. {@code null} once a stop was requested.
     */
    @Nullable
    RuntimeState stopRequested(long now) {
        return switch (phase) {
            case NEW -> new RuntimeState(STOPPED, 0, false, now, null, null, now, 0);
            case STARTING ->
                stopBeganAt == null ? new RuntimeState(STARTING, entered, false, now, null, null, null, 0) : null;
            case RUNNING -> new RuntimeState(STOPPING, entered, false, now, null, null, null, 0);
            case STOPPING, STOPPED -> null;
        };
    }

    /**
     * The startup failed or gave way to a stop: STARTING to STOPPING, counting from the stop request if one came.
     * Admission closes at once and the rollback does not wait for open leases.
     */
    @Nullable
    RuntimeState rollingBack(long now) {
        if (phase != STARTING) {
            return null;
        }
        long began = stopBeganAt == null ? now : stopBeganAt;
        return new RuntimeState(STOPPING, entered, false, began, now, now, null, 0);
    }

    /** On the graceful path, admission closed; {@code null} once forced. */
    @Nullable
    RuntimeState admissionClosed(long now) {
        if (phase != STOPPING || forced || admissionClosedAt != null) {
            return null;
        }
        return new RuntimeState(phase, entered, false, stopBeganAt, now, drainedAt, null, 0);
    }

    /** On the graceful path, every lease admitted before the close ended; {@code null} once forced. */
    @Nullable
    RuntimeState drained(long now) {
        if (phase != STOPPING || forced || admissionClosedAt == null || drainedAt != null) {
            return null;
        }
        return new RuntimeState(phase, entered, false, stopBeganAt, admissionClosedAt, now, null, 0);
    }

    /** A force begins, from any phase but STOPPED, once. */
    @Nullable
    RuntimeState forcing(long now, long openLeases) {
        if (phase == STOPPED || forced) {
            return null;
        }
        long began = stopBeganAt == null ? now : stopBeganAt;
        return new RuntimeState(STOPPING, entered, true, began, admissionClosedAt, drainedAt, null, openLeases);
    }

    /**
     * STOPPING to STOPPED: on the graceful path only while no force began; by the force, once it forced every component.
     */
    @Nullable
    RuntimeState stopped(long now, boolean byForce) {
        if (phase != STOPPING || forced != byForce) {
            return null;
        }
        return new RuntimeState(STOPPED, entered, forced, stopBeganAt, admissionClosedAt, drainedAt, now, cut);
    }

    /** From the stop request to the end; zero before the end. */
    Duration duration() {
        return between(stopBeganAt, stoppedAt);
    }

    /** From the stop request until admission closed (the end, if it never closed gracefully). */
    Duration quietWait() {
        return between(stopBeganAt, orEnd(admissionClosedAt));
    }

    /** From admission closed until the admitted leases ended (or the force cut them). */
    Duration drainWait() {
        return between(orEnd(admissionClosedAt), orEnd(drainedAt));
    }

    /** The phase, and a stop requested during startup or a force under way, for error messages. */
    String describe() {
        if (phase == STARTING && stopBeganAt != null) {
            return phase + " (stop requested)";
        }
        if (phase == STOPPING && forced) {
            return phase + " (forcing)";
        }
        return phase.toString();
    }

    private RuntimeState withPhase(LanesRuntime.State next) {
        return new RuntimeState(next, entered, forced, stopBeganAt, admissionClosedAt, drainedAt, stoppedAt, cut);
    }

    private @Nullable Long orEnd(@Nullable Long instant) {
        return instant == null ? stoppedAt : instant;
    }

    private static Duration between(@Nullable Long from, @Nullable Long to) {
        if (from == null || to == null) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, to - from));
    }
}
