package dev.lanes.runtime;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How one component ended.
 *
 * @param outcome what happened to it
 * @param stopDuration how long its graceful stop took (zero when it was not stopped gracefully)
 * @param failure its stop failure, if any
 */
public record ComponentReport(
        String name,
        Outcome outcome,
        Duration stopDuration,
        @Nullable Throwable failure) {

    /** What became of a component at shutdown. */
    public enum Outcome {
        /** It drained its admitted work and stopped. */
        DRAINED,
        /** It was force-stopped: admitted work it still held was cancelled or handed back. */
        FORCED,
        /** Its graceful stop failed; it was then forced. */
        FAILED,
        /** It never got past prepare; it was forced to release what it had acquired. */
        NOT_STARTED
    }

    public ComponentReport {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(stopDuration, "stopDuration");
    }
}
