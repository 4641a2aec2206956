package dev.lanes.processing.deadletter;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Require;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a retry (or skip) of one parked sequence did.
 *
 * @param processor the processor
 * @param aggregateId the aggregate
 * @param delivered letters the processor handled this time, in order, and that left the sequence
 * @param skipped letters dropped without delivery (the head, for a skip)
 * @param remaining letters still parked: 0 when the sequence is gone, else its head failed again
 * @param failure the head's new reason when it failed again, else {@code null}
 */
public record RetryOutcome(
        String processor,
        AggregateId aggregateId,
        int delivered,
        int skipped,
        int remaining,
        @Nullable String failure) {

    public RetryOutcome {
        Require.notBlank(processor, "processor");
        Objects.requireNonNull(aggregateId, "aggregateId");
        Require.notNegative(delivered, "delivered");
        Require.notNegative(skipped, "skipped");
        Require.notNegative(remaining, "remaining");
        if ((remaining == 0) != (failure == null)) {
            throw new IllegalArgumentException("a sequence keeps letters exactly when its head failed again: remaining "
                    + remaining + ", failure " + failure + " (" + processor + ", " + aggregateId + ")");
        }
    }

    /** Whether the sequence is gone: every letter was delivered or skipped. */
    public boolean released() {
        return remaining == 0;
    }
}
