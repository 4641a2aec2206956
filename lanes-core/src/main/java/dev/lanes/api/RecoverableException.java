package dev.lanes.api;

/** A failure that retrying may cure: lanes retry these by default. */
public abstract class RecoverableException extends LanesException {
    private static final long serialVersionUID = 1L;

    protected RecoverableException(String message) {
        super(message);
    }

    protected RecoverableException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public final boolean isRecoverable() {
        return true;
    }
}
