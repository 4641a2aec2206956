package dev.lanes.api;

/**
 * The root of Lanes' exceptions. Each says whether retrying the same operation later can help: {@link
 * RecoverableException} (a version conflict, an overloaded bus) or {@link NonRecoverableException} (a duplicate id,
 * a rejected command).
 */
public abstract class LanesException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    protected LanesException(String message) {
        super(message);
    }

    protected LanesException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Whether the same operation may succeed if tried again later. */
    public abstract boolean isRecoverable();
}
