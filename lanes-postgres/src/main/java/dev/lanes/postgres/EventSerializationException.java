package dev.lanes.postgres;

import dev.lanes.api.NonRecoverableException;

/**
 * A payload or snapshot state could not be written to JSON, stored as {@code jsonb}, or read back into its type.
 * Retrying the same payload cannot help.
 */
public final class EventSerializationException extends NonRecoverableException {
    private static final long serialVersionUID = 1L;

    public EventSerializationException(String message, Throwable cause) {
        super(message, cause);
    }
}
