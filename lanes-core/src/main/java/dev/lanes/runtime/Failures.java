package dev.lanes.runtime;

import org.jspecify.annotations.Nullable;

/** The first failure is primary, later ones are suppressed into it; sealed once published. */
final class Failures {
    private @Nullable Throwable primary;
    private boolean sealed;

    synchronized void record(Throwable failure) {
        if (sealed || failure == primary) {
            return;
        }
        if (primary == null) {
            primary = failure;
        } else {
            primary.addSuppressed(failure);
        }
    }

    /** Whether {@code failure} was recorded already (as primary or suppressed). */
    synchronized boolean isKnown(Throwable failure) {
        if (primary == null) {
            return false;
        }
        if (primary == failure) {
            return true;
        }
        for (Throwable suppressed : primary.getSuppressed()) {
            if (suppressed == failure) {
                return true;
            }
        }
        return false;
    }

    synchronized @Nullable Throwable primary() {
        return primary;
    }

    synchronized @Nullable Throwable seal() {
        sealed = true;
        return primary;
    }
}
