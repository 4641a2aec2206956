package dev.lanes.modeling;

import dev.lanes.api.NonRecoverableException;

/**
 * A business rule refused a command (for example insufficient funds). Thrown by command handlers; reaches the sender
 * with its message and leaves the aggregate unchanged.
 */
public class CommandRejectedException extends NonRecoverableException {
    private static final long serialVersionUID = 1L;

    public CommandRejectedException(String message) {
        super(message);
    }
}
