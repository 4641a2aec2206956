package dev.lanes.dispatch;

import dev.lanes.internal.Require;
import java.util.Objects;

/**
 * How a dispatcher forms and bounds its lanes.
 *
 * @param strategy how exchanges are grouped into serial lanes
 * @param parallelism groups of the {@link LaneStrategy#HASHED} strategy, separate from the scheduler's worker count
 * @param maxQueuedPerLane admitted exchanges one lane may hold (running one included); more for that lane are rejected
 *     back to their source with {@link ExchangeRejectedException.Reason#LANE_FULL}
 * @param maxQueued admitted exchanges the whole dispatcher may hold; at this bound it stops requesting from its source
 * @param retryPolicy how a failing exchange is retried inside its lane before it is parked
 */
public record LaneSettings(
        LaneStrategy strategy, int parallelism, int maxQueuedPerLane, int maxQueued, RetryPolicy retryPolicy) {

    /** {@code HASHED}, {@link MessageParallelism#DEFAULT_PARALLELISM} groups, 1,024 per lane, 16,384 in all. */
    public static final LaneSettings DEFAULT = new LaneSettings(
            LaneStrategy.HASHED, MessageParallelism.DEFAULT_PARALLELISM, 1024, 16_384, RetryPolicy.DEFAULT);

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
    }

    public LaneSettings withStrategy(LaneStrategy strategy) {
        return new LaneSettings(strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy);
    }

    public LaneSettings withParallelism(int parallelism) {
        return new LaneSettings(strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy);
    }

    public LaneSettings withBounds(int maxQueuedPerLane, int maxQueued) {
        return new LaneSettings(strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy);
    }

    public LaneSettings withRetryPolicy(RetryPolicy retryPolicy) {
        return new LaneSettings(strategy, parallelism, maxQueuedPerLane, maxQueued, retryPolicy);
    }
}
