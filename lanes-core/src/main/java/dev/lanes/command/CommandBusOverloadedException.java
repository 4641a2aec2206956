package dev.lanes.command;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.RecoverableException;

/** The command bus holds its maximum of commands for this aggregate type; nothing was sent. Retry later. */
public final class CommandBusOverloadedException extends RecoverableException {
    private static final long serialVersionUID = 1L;

    CommandBusOverloadedException(String bus, MaterializedNamedAggregate type, int capacity) {
        super(bus + " is full for " + type + ": " + capacity + " commands wait for its dispatcher; retry later");
    }
}
