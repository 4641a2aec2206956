package dev.lanes.dispatch;

/** What became of one handling attempt or one exchange; a low-cardinality metric tag. */
public enum Outcome {
    /** The handler completed; the exchange was acknowledged. */
    HANDLED,
    /** The handler failed and the attempt will be retried inside the lane. */
    RETRIED,
    /**
     * Retries were exhausted (or the error is not retryable); the exchange was parked and acknowledged. Also an exchange
     * its handler set aside in a queue of its own ({@link MessageExchange#setAside()}: the event side's dead letters).
     */
    PARKED,
    /** The exchange was handed back to its source without being handled (overload, admission closed, stop). */
    REJECTED,
    /**
     * The handler was cancelled by a force stop, or timed out while its dispatcher was stopping; the exchange was handed
     * back to its source.
     */
    CANCELLED;

    /** Lower-case name used as a tag value. */
    public String tagValue() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
