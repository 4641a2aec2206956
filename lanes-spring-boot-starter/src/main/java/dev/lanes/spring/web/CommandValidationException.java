package dev.lanes.spring.web;

import dev.lanes.api.NonRecoverableException;
import dev.lanes.messaging.CommandMessage;
import java.util.List;
import java.util.Objects;

/**
 * Bean Validation found constraint violations on a command: it was not sent and nothing is stored. The endpoint answers
 * 400 with the violations. Retrying the same command cannot help.
 */
public final class CommandValidationException extends NonRecoverableException {
    private static final long serialVersionUID = 1L;

    /**
     * One violated constraint.
     *
     * @param path the property path within the command ({@code amount}); empty for the command as a whole
     * @param message the constraint's message ({@code must be greater than 0})
     */
    public record Violation(String path, String message) {
        public Violation {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(message, "message");
        }

        @Override
        public String toString() {
            return (path.isEmpty() ? "" : path + " ") + message;
        }
    }

    private final List<Violation> violations;

    /** @throws IllegalArgumentException when {@code violations} is empty */
    public CommandValidationException(CommandMessage command, List<Violation> violations) {
        super(command + " is invalid: " + violations);
        if (violations.isEmpty()) {
            throw new IllegalArgumentException("a CommandValidationException needs a violation: " + command);
        }
        this.violations = List.copyOf(violations);
    }

    /** The violations, sorted by path. */
    public List<Violation> violations() {
        return violations;
    }
}
