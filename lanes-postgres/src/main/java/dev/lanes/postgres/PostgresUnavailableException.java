package dev.lanes.postgres;

import dev.lanes.api.RecoverableException;

/**
 * PostgreSQL could not be reached or dropped the connection: refused or timed-out connections, a pool with no free
 * connection in time, a socket timeout, a server shutting down, a serialization failure or deadlock. The message names
 * the server ({@code host:port/database}). Recoverable: a lane retries it by default.
 */
public final class PostgresUnavailableException extends RecoverableException {
    private static final long serialVersionUID = 1L;

    public PostgresUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
