package dev.lanes.dispatch;

import dev.lanes.internal.Require;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How a dispatcher forms and bounds its lanes.
 *
 * @param strategy how exchanges are grouped into serial lanes
 * @param parallelism groups of the {@link LaneStrategy#HASHED} strategy, separate from the scheduler's worker count
 * @param maxQueuedPerLane admitted exchanges one lane may hold (running one included) under {@code REJECT}; under
 *     {@code PAUSE} a lane may hold more, out of the shared budget
 * @param maxQueued admitted exchanges the whole dispatcher may hold; at this bound it stops requesting from its source
 * @param retryPolicy how a failing exchange is retried inside its lane before it is parked
 * @param overflow what a full lane does to more exchanges for it
 * @param handlerTimeout when a running handler attempt is warned about and when it fails (see {@link HandlerTimeout});
 *     null: never (a hung handler holds its lane until a force stop)
 */
public record LaneSettings(
        LaneStrategy strategy,
        int parallelism,
        int maxQueuedPerLane,
        int maxQueued,
        RetryPolicy retryPolicy,
        Overflow overflow,
        @Nullable HandlerTimeout handlerTimeout) {

    /** What a lane at {@code maxQueuedPerLane} does with one more exchange. */
    public enum Overflow {
        /**
         * Takes it: the lane's overflow is held within the dispatcher's shared budget {@code maxQueued}, and other lanes
         * keep flowing. The source is paused only when the whole budget is admitted and unsettled (whichever lanes hold
         * it), and resumes as soon as slots free up. Memory stays bounded by {@code maxQueued} exchanges. Nothing is
         * rejected, so it suits sources that cannot redeliver; a stuck lane stalls the others only once it alone holds
         * the whole budget.
         */
        PAUSE,
        /**
         * Hands it back to its source at once with {@link ExchangeRejectedException.Reason#LANE_FULL}; other lanes keep
         * taking. The pressure goes to the sender of that aggregate only; suits senders that can retry (the gateway).
         */
        REJECT
    }

    /**
     * {@code HASHED}, {@link MessageParallelism#DEFAULT_PARALLELISM} groups, 1,024 per lane, 16,384 in all, default
     * retries, {@code PAUSE} on a full lane, {@link HandlerTimeout#DEFAULT} (warning at 10 s, timeout at 30 s).
     */
    public static final LaneSettings DEFAULT = new LaneSettings(
            LaneStrategy.HASHED,
            MessageParallelism.DEFAULT_PARALLELISM,
            1024,
            16_384,
            RetryPolicy.DEFAULT,
            Overflow.PAUSE,
            HandlerTimeout.DEFAULT);

    public LaneSettings {
        Objects.requireNonNull(strategy, "strategy");
        Require.positive(parallelism, "parallelism");
        Require.positive(maxQueuedPerLane, "maxQueuedPerLane");
        Require.positive(maxQueued, "maxQueued");
        if (maxQueuedPerLane > maxQueued) {
            throw new IllegalArgumentException(
                    "maxQueuedPerLane must not exceed maxQueued: " + maxQueuedPerLane + " > " + maxQueued);
        }
        Objects.requireNonNull(retryPolicy, "retryPolicy");
        Objects.requireNonNull(overflow, "overflow");
    }

    public LaneSettings withStrategy(LaneStrategy strategy) {
        return new LaneSettings(
                strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy, overflow, handlerTimeout);
    }

    public LaneSettings withParallelism(int parallelism) {
        return new LaneSettings(
                strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy, overflow, handlerTimeout);
    }

    public LaneSettings withBounds(int maxQueuedPerLane, int maxQueued) {
        return new LaneSettings(
                strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy, overflow, handlerTimeout);
    }

    public LaneSettings withOverflow(Overflow overflow) {
        return new LaneSettings(
                strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy, overflow, handlerTimeout);
    }

    public LaneSettings withRetryPolicy(RetryPolicy retryPolicy) {
        return new LaneSettings(
                strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy, overflow, handlerTimeout);
    }

    /**
     * Warns about a handler attempt once it has run {@code warningThreshold}, and fails it at {@code timeout}; see
     * {@link HandlerTimeout}.
     *
     * @throws IllegalArgumentException naming the value if either is not positive, the warning comes after the timeout,
     *     or the timeout exceeds {@link HandlerTimeout#MAX_TIMEOUT}
     */
    public LaneSettings withHandlerTimeout(Duration warningThreshold, Duration timeout) {
        return withHandlerTimeout(new HandlerTimeout(warningThreshold, timeout));
    }

    public LaneSettings withHandlerTimeout(HandlerTimeout handlerTimeout) {
        Objects.requireNonNull(handlerTimeout, "handlerTimeout");
        return new LaneSettings(
                strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy, overflow, handlerTimeout);
    }

    /** Neither warns about nor times out a handler: one that never ends holds its lane until a force stop. */
    public LaneSettings withoutHandlerTimeout() {
        return new LaneSettings(strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy, overflow, null);
    }
}
