package dev.lanes.eventsourcing.types;

import dev.lanes.api.NonRecoverableException;

/**
 * A stored event could not be brought to the current revision of its type: an upcaster failed, the chain looped, or it
 * ended at another revision than the registered one. Retrying the same read cannot help: the registry (a missing
 * upcaster) must change.
 */
public final class UpcastingException extends NonRecoverableException {
    private static final long serialVersionUID = 1L;

    UpcastingException(String message, Throwable cause) {
        super(message, cause);
    }
}
