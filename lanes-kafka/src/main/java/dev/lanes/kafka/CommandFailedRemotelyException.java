package dev.lanes.kafka;

import dev.lanes.api.LanesException;

/**
 * The command failed on the instance that handled it (its handler refused it, or its retries ran out): the name and
 * message of the exception there, which stays on that instance. Nothing was stored for it.
 */
public final class CommandFailedRemotelyException extends LanesException {
    private static final long serialVersionUID = 1L;

    private final String remoteType;
    private final String instance;
    private final boolean recoverable;

    CommandFailedRemotelyException(String remoteType, String message, String instance, boolean recoverable) {
        super(remoteType + ": " + message + " (on instance " + instance + ")");
        this.remoteType = remoteType;
        this.instance = instance;
        this.recoverable = recoverable;
    }

    /** The class name of the exception on the handling instance. */
    public String remoteType() {
        return remoteType;
    }

    /** The instance that handled the command. */
    public String instance() {
        return instance;
    }

    @Override
    public boolean isRecoverable() {
        return recoverable;
    }
}
