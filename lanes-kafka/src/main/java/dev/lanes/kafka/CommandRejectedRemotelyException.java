package dev.lanes.kafka;

import dev.lanes.modeling.CommandRejectedException;

/**
 * A business rule refused the command on the instance that handled it (a {@link CommandRejectedException} there, such
 * as insufficient funds): the name and message of that exception, which stays on that instance. Nothing was stored.
 * Being a {@code CommandRejectedException} here too, it is told apart from a fault as a local refusal is.
 */
public final class CommandRejectedRemotelyException extends CommandRejectedException {
    private static final long serialVersionUID = 1L;

    private final String remoteType;
    private final String instance;

    CommandRejectedRemotelyException(String remoteType, String message, String instance) {
        super(message + " (" + remoteType + " on instance " + instance + ")");
        this.remoteType = remoteType;
        this.instance = instance;
    }

    /** The class name of the exception on the handling instance. */
    public String remoteType() {
        return remoteType;
    }

    /** The instance that handled the command. */
    public String instance() {
        return instance;
    }
}
