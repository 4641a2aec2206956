package dev.lanes.dispatch;

import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * A handler attempt ran past its lane's {@link HandlerTimeout#timeout()}: the lane cancelled it and treats it as the
 * attempt's error (retried by the {@link RetryPolicy}, then parked or answered as failed). A {@link TimeoutException},
 * so a policy's {@code retryable} predicate can tell it apart; {@code CommandDispatcher#DEFAULT_RETRY_POLICY} does not
 * retry it.
 *
 * <p>No stack trace is filled in: it is made on the dispatcher's sweep, whose stack says nothing about the handler; the
 * message names the dispatcher, the aggregate id, the attempt and the timeout.
 */
public final class HandlerTimeoutException extends TimeoutException {
    private static final long serialVersionUID = 1L;

    private final String component;
    private final Duration timeout;
    private final int attempt;

    HandlerTimeoutException(String component, String aggregateId, Duration timeout, int attempt) {
        super(component + " handler for " + aggregateId + " did not end within its timeout of " + timeout + " (attempt "
                + attempt + "); it was cancelled");
        this.component = component;
        this.timeout = timeout;
        this.attempt = attempt;
    }

    /** The dispatcher or processor whose lane gave up on the handler. */
    public String component() {
        return component;
    }

    public Duration timeout() {
        return timeout;
    }

    /** The attempt that timed out, from 1. */
    public int attempt() {
        return attempt;
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
