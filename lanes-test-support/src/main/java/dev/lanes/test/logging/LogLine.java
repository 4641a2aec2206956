package dev.lanes.test.logging;

import java.util.Objects;
import org.slf4j.event.Level;

/**
 * One log line a {@link LogCapture} captured.
 *
 * @param details what was written after the line and before the next one, without a trailing line break: the stack
 *     trace of the exception logged with it, or empty
 */
public record LogLine(Level level, String thread, String logger, String message, String details) {
    public LogLine {
        Objects.requireNonNull(level, "level");
        Objects.requireNonNull(thread, "thread");
        Objects.requireNonNull(logger, "logger");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(details, "details");
    }
}
