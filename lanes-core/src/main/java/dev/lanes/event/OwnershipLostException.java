package dev.lanes.event;

import dev.lanes.api.NonRecoverableException;
import java.util.Objects;

/**
 * A write for a message was refused because another instance took over the partition the message came from after
 * this instance was handed it: the epoch this instance holds is no longer the partition's. Retrying on this instance
 * cannot help; the message is handed back to its source unacknowledged, and the partition's new owner reads it again
 * from the last committed offset.
 */
public final class OwnershipLostException extends NonRecoverableException {
    private static final long serialVersionUID = 1L;

    private final transient OwnershipFence.Epoch held;
    private final long currentEpoch;

    private OwnershipLostException(String message, OwnershipFence.Epoch held, long currentEpoch) {
        super(message);
        this.held = held;
        this.currentEpoch = currentEpoch;
    }

    /**
     * {@code component} refused {@code what} for {@code processor}: it carried {@code held}, the partition is at {@code
     * currentEpoch} (0 if it was never claimed) taken by {@code currentOwner}.
     */
    public static OwnershipLostException refused(
            String component,
            String what,
            String processor,
            OwnershipFence.Epoch held,
            long currentEpoch,
            String currentOwner) {
        Objects.requireNonNull(held, "held");
        return new OwnershipLostException(
                component + " refused " + what + " for " + processor + ": partition " + held.partitionName()
                        + " is at epoch " + currentEpoch + " (taken by " + currentOwner
                        + "), this instance holds epoch "
                        + held.epoch() + "; another instance owns the partition now, and reads the message again",
                held,
                currentEpoch);
    }

    /** The fence the refused write carried. */
    public OwnershipFence.Epoch held() {
        return held;
    }

    /** The partition's epoch when the write was refused. */
    public long currentEpoch() {
        return currentEpoch;
    }
}
