package dev.lanes.cli.command;

/**
 * Something a run needs outside this process could not be reached. Its message is the one line the user sees: what,
 * where ({@code host:port}) and why, never a password.
 */
final class InfrastructureUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private InfrastructureUnavailableException(String message) {
        super(message, null, false, false);
    }

    /** {@code cannot reach PostgreSQL at 127.0.0.1:1 (Connection refused)}. */
    static InfrastructureUnavailableException unreachable(String what, String where, String why) {
        return new InfrastructureUnavailableException("cannot reach " + what + " at " + where + " (" + why + ")");
    }

    /** {@code PostgreSQL at 127.0.0.1:5432 failed (ERROR: relation "lanes_dead_letters" does not exist)}. */
    static InfrastructureUnavailableException failed(String what, String where, String why) {
        return new InfrastructureUnavailableException(what + " at " + where + " failed (" + why + ")");
    }
}
