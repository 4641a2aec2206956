package dev.lanes.kafka;

import static dev.lanes.kafka.LoopState.Intake.FOLLOW_UPS_ONLY;
import static dev.lanes.kafka.LoopState.Intake.NEW_AND_FOLLOW_UPS;
import static dev.lanes.kafka.LoopState.Intake.NONE;
import static dev.lanes.kafka.LoopState.Phase.CLOSING;
import static dev.lanes.kafka.LoopState.Phase.FORCED;
import static dev.lanes.kafka.LoopState.Phase.NEW;
import static dev.lanes.kafka.LoopState.Phase.RUNNING;
import static dev.lanes.kafka.LoopState.Phase.TERMINATED;

import java.util.Objects;
import org.apache.kafka.clients.consumer.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One snapshot of a {@link ConsumerLoop}'s lifecycle: its phase, what it still hands to the lanes, whether its
 * consumer thread was started, and the consumer that thread polls while it is open. Immutable: the loop holds the
 * current snapshot in one {@link LoopLifecycle} and moves it only by compare-and-set to the snapshot a transition below
 * computes, so the phase, the intake and the consumer never disagree, and each transition is won by exactly one caller,
 * which then performs its effects (a loser recomputes from the winner's snapshot).
 *
 * <p>A transition returns the next snapshot, or {@code null} when it does not apply to this one (another caller got
 * there first, or it is already done). Misuse throws instead, naming the loop and the state: starting twice or after a
 * stop, the consumer thread attaching a consumer it was not started for.
 *
 * <p>Who moves what: the runtime's threads (any thread) move {@link #started}, {@link #followUpsOnly}, {@link
 * #quiesced}, {@link #closing}, {@link #forcing} and {@link #neverStarted}; the consumer thread alone moves {@link
 * #attached}, {@link #released} and {@link #ended}, and also {@link #forcing} when it fails.
 *
 * <p>The phases, one way: {@code NEW -> RUNNING -> CLOSING -> FORCED -> TERMINATED}, any of the middle ones skippable
 * ({@code NEW} may close or force before it starts, and ends by {@link #neverStarted}). The intake, one way too:
 * {@code NEW_AND_FOLLOW_UPS -> FOLLOW_UPS_ONLY -> NONE}; from {@code CLOSING} on it is {@code NONE}.
 *
 * @param phase where the lifecycle is
 * @param intake what is still handed to the lanes
 * @param threadStarted whether {@link #started} ran: then the consumer thread, and only it, ends the loop
 * @param consumer the consumer, from when the consumer thread created it until it closed it; a force wakes it up
 */
record LoopState(
        Phase phase,
        Intake intake,
        boolean threadStarted,
        @Nullable Consumer<String, byte[]> consumer) {

    /** Where the lifecycle is; there is no restart. */
    enum Phase {
        /** Constructed; no thread yet. */
        NEW,
        /** The consumer thread polls and hands records out (as far as {@link Intake} lets it). */
        RUNNING,
        /** Hands nothing more out; the consumer thread waits for what is in flight, commits it and leaves the group. */
        CLOSING,
        /** Leaves at once, committing nothing (a force, or the loop failed). */
        FORCED,
        /** The consumer thread ended, or the loop was never started. */
        TERMINATED
    }

    /** What the loop still hands to the lanes. */
    enum Intake {
        /** New work and follow-ups. */
        NEW_AND_FOLLOW_UPS,
        /** Follow-ups only (they are part of work in progress): the runtime began to stop. */
        FOLLOW_UPS_ONLY,
        /** Nothing: what the lanes hold still settles and is committed. */
        NONE
    }

    static final LoopState INITIAL = new LoopState(NEW, NEW_AND_FOLLOW_UPS, false, null);

    LoopState {
        Objects.requireNonNull(phase, "phase");
        Objects.requireNonNull(intake, "intake");
        if (phase.compareTo(CLOSING) >= 0 && intake != NONE) {
            throw new IllegalArgumentException("a consumer loop " + phase + " takes nothing in: " + intake);
        }
        if (phase == NEW && threadStarted) {
            throw new IllegalArgumentException("a NEW consumer loop has no thread");
        }
        if (consumer != null && (phase == NEW || phase == TERMINATED || !threadStarted)) {
            throw new IllegalArgumentException("a consumer loop " + phase + " holds no open consumer");
        }
    }

    /** NEW to RUNNING: the consumer thread starts. Throws for any other phase: starting twice or after a stop. */
    LoopState started(String owner) {
        if (phase != NEW) {
            throw new IllegalStateException(
                    owner + " can only be started once, and not after a stop; current state: " + describe());
        }
        return new LoopState(RUNNING, intake, true, null);
    }

    /** New work is no longer taken, follow-ups still are; {@code null} once that or less is taken. */
    @Nullable
    LoopState followUpsOnly() {
        return intake == NEW_AND_FOLLOW_UPS ? withIntake(FOLLOW_UPS_ONLY) : null;
    }

    /** Nothing more is handed to the lanes; {@code null} once quiesced (closing, forced, ended). */
    @Nullable
    LoopState quiesced() {
        return intake == NONE ? null : withIntake(NONE);
    }

    /** NEW or RUNNING to CLOSING, quiesced; {@code null} once closing, forced or ended. */
    @Nullable
    LoopState closing() {
        if (phase != NEW && phase != RUNNING) {
            return null;
        }
        return new LoopState(CLOSING, NONE, threadStarted, consumer);
    }

    /** Any phase before FORCED to FORCED, quiesced; {@code null} once forced or ended. */
    @Nullable
    LoopState forcing() {
        if (phase == FORCED || phase == TERMINATED) {
            return null;
        }
        return new LoopState(FORCED, NONE, threadStarted, consumer);
    }

    /**
     * The consumer thread created its consumer: RUNNING or CLOSING now carry it (a force wakes it up). {@code null}
     * when a force came first: the thread closes it and leaves. Throws when the thread was not started, or attaches
     * twice.
     */
    @Nullable
    LoopState attached(Consumer<String, byte[]> created, String owner) {
        if (phase == FORCED && threadStarted) {
            return null;
        }
        if ((phase != RUNNING && phase != CLOSING) || consumer != null) {
            throw new IllegalStateException(owner + " cannot attach a consumer in state " + describe());
        }
        return new LoopState(phase, intake, true, Objects.requireNonNull(created, "created"));
    }

    /** The consumer thread closes its consumer: a force no longer wakes it up. {@code null} when none is attached. */
    @Nullable
    LoopState released() {
        return consumer == null ? null : new LoopState(phase, intake, threadStarted, null);
    }

    /** The consumer thread ended: to TERMINATED. {@code null} when already ended. */
    @Nullable
    LoopState ended() {
        return phase == TERMINATED ? null : new LoopState(TERMINATED, NONE, threadStarted, null);
    }

    /**
     * A loop never started ends without a thread: to TERMINATED. {@code null} when already ended, or when its thread
     * was started (that thread ends it).
     */
    @Nullable
    LoopState neverStarted() {
        return threadStarted || phase == TERMINATED ? null : new LoopState(TERMINATED, NONE, false, null);
    }

    /** Whether records are no longer handed to the lanes. */
    boolean isQuiesced() {
        return intake == NONE;
    }

    /** Whether new work (not only follow-ups) is handed to the lanes. */
    boolean takesNew() {
        return intake == NEW_AND_FOLLOW_UPS;
    }

    boolean isForced() {
        return phase == FORCED;
    }

    boolean isClosing() {
        return phase == CLOSING;
    }

    /** The phase and the intake, for error messages. */
    String describe() {
        String thread = threadStarted ? "" : ", no thread";
        return phase + " (intake " + intake + thread + (consumer == null ? "" : ", consumer open") + ")";
    }

    private LoopState withIntake(Intake next) {
        return new LoopState(phase, next, threadStarted, consumer);
    }

    @Override
    public String toString() {
        return describe();
    }
}
