package dev.lanes.postgres;

/**
 * Any other SQL failure (a missing table because {@code migrate()} was not run, a permission error, ...), with the
 * server, the operation and the SQLState in its message. It is deliberately not a {@code LanesException}: lanes retry
 * it under their default policy and park the message when retries are exhausted.
 */
public final class PostgresStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PostgresStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
