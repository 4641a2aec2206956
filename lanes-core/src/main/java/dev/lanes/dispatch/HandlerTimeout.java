package dev.lanes.dispatch;

import dev.lanes.internal.Require;
import java.time.Duration;

/**
 * How long one handler attempt may run before the lane warns about it and before it gives up on it (see {@link
 * LaneSettings#handlerTimeout()}).
 *
 * <p>Only a handler whose {@code Mono} goes on after the lane subscribed to it is timed: one that ends at once costs
 * nothing. Each dispatcher that has such an attempt running checks them with one periodic sweep on its scheduler (no
 * timer per message), every {@linkplain #sweepPeriod() tenth of the warning threshold, at most one second}. So the
 * warning and the timeout come at their threshold or up to two sweep periods after it, never before; later only if the
 * scheduler's workers are all busy.
 *
 * <ul>
 *   <li>At {@code warningThreshold} a WARN is logged once for the attempt, naming the dispatcher, the aggregate id, the
 *       message and how long the attempt has run.
 *   <li>At {@code timeout} the handler's subscription is cancelled and the attempt fails with a {@link
 *       HandlerTimeoutException}, which goes the way of any handler error: the lane's {@link RetryPolicy} retries it
 *       or the exchange is parked (a command's sender is answered with it). The lane moves on at once; an end the
 *       handler signals afterwards is ignored. While the dispatcher is stopping, a timed-out attempt is not retried:
 *       its exchange goes back to its source, so a graceful stop waits at most one timeout for a hung handler.
 * </ul>
 *
 * <p>A timeout frees the lane, not the handler's thread: a handler that ignores cancellation (a blocked call) may still
 * be running when the lane's next exchange, or the retry, starts. A handler that blocks the worker inside {@code
 * handle} or inside {@code subscribe} holds the lane's owner thread: it is warned about, but cannot be timed out.
 *
 * @param warningThreshold how long an attempt runs before one WARN is logged for it; positive, at most {@code timeout}
 * @param timeout how long an attempt runs before it fails; positive, at most {@link #MAX_TIMEOUT}
 */
public record HandlerTimeout(Duration warningThreshold, Duration timeout) {
    /** The longest timeout accepted: 24 hours. */
    public static final Duration MAX_TIMEOUT = Duration.ofHours(24);

    /**
     * Warns at 10 s, fails at 30 s (the timeout of Axon Framework's handlers, and {@code CommandResults}' default wait):
     * an event or command handler of a lane engine answers in milliseconds, so 10 s is a hang worth a log line, and 30 s
     * bounds how long one hung handler holds its aggregate's lane.
     */
    public static final HandlerTimeout DEFAULT = new HandlerTimeout(Duration.ofSeconds(10), Duration.ofSeconds(30));

    private static final Duration LONGEST_SWEEP = Duration.ofSeconds(1);
    private static final Duration SHORTEST_SWEEP = Duration.ofMillis(1);

    public HandlerTimeout {
        Require.positive(warningThreshold, "warningThreshold");
        Require.positive(timeout, "timeout");
        if (timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException("timeout must be at most " + MAX_TIMEOUT + ": " + timeout);
        }
        if (warningThreshold.compareTo(timeout) > 0) {
            throw new IllegalArgumentException(
                    "warningThreshold must not exceed timeout: " + warningThreshold + " > " + timeout);
        }
    }

    /**
     * How often a dispatcher checks its running attempts: a tenth of the warning threshold, within [1 ms, 1 s]. The
     * sweep's own ({@link HandlerSweep}); not API.
     */
    Duration sweepPeriod() {
        Duration tenth = warningThreshold.dividedBy(10);
        if (tenth.compareTo(SHORTEST_SWEEP) < 0) {
            return SHORTEST_SWEEP;
        }
        return tenth.compareTo(LONGEST_SWEEP) > 0 ? LONGEST_SWEEP : tenth;
    }
}
