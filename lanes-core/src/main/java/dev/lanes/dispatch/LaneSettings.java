package dev.lanes.dispatch;

import dev.lanes.internal.Require;
import java.util.Objects;

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
 */
public record LaneSettings(
        LaneStrategy strategy,
        int parallelism,
        int maxQueuedPerLane,
        int maxQueued,
        RetryPolicy retryPolicy,
        Overflow overflow) {

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
     * retries, {@code PAUSE} on a full lane.
     */
    public static final LaneSettings DEFAULT = new LaneSettings(
            LaneStrategy.HASHED,
            MessageParallelism.DEFAULT_PARALLELISM,
            1024,
            16_384,
            RetryPolicy.DEFAULT,
            Overflow.PAUSE);

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
        return new LaneSettings(strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy, overflow);
    }

    public LaneSettings withParallelism(int parallelism) {
        return new LaneSettings(strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy, overflow);
    }

    public LaneSettings withBounds(int maxQueuedPerLane, int maxQueued) {
        return new LaneSettings(strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy, overflow);
    }

    public LaneSettings withOverflow(Overflow overflow) {
        return new LaneSettings(strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy, overflow);
    }

    public LaneSettings withRetryPolicy(RetryPolicy retryPolicy) {
        return new LaneSettings(strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy, overflow);
    }
}
