package dev.lanes.api;

/** A failure that retrying will not cure: reported to the caller (or parked) at once. */
public abstract class NonRecoverableException extends LanesException {
    private static final long serialVersionUID = 1L;

    protected NonRecoverableException(String message) {
        super(message);
    }

    protected NonRecoverableException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public final boolean isRecoverable() {
        return false;
    }
}
