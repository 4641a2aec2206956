package dev.lanes.dispatch;

/**
 * Why a dispatcher handed an exchange back to its source without handling it. Given to {@link
 * MessageExchange#reject(Throwable)}; a local sender sees it as the cause of its failure.
 */
public final class ExchangeRejectedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Whether retrying the same send later can help. */
    public enum Reason {
        /** The aggregate's lane held its maximum of queued exchanges: back off and retry. */
        LANE_FULL(true),
        /** The dispatcher's admission closed (the runtime is stopping): another instance or a restart will take it. */
        ADMISSION_CLOSED(true),
        /** The dispatcher had stopped taking exchanges. */
        STOPPING(true),
        /** A force stop cancelled or skipped it. */
        FORCED(true),
        /** The exchange could not be put in a lane: its aggregate id was missing or could not be read. */
        UNROUTABLE(false),
        /** An infrastructure fault (e.g. the scheduler refused work); the owner was told. */
        FAULT(false);

        private final boolean retryLater;

        Reason(boolean retryLater) {
            this.retryLater = retryLater;
        }

        public boolean retryLater() {
            return retryLater;
        }
    }

    private final Reason reason;

    /** Expected under load: no stack trace is filled in (the message says where and why). */
    ExchangeRejectedException(Reason reason, String message) {
        super(message, null, true, false);
        this.reason = reason;
    }

    ExchangeRejectedException(Reason reason, String message, Throwable cause) {
        super(message, cause, true, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
