package dev.lanes.dispatch;

import dev.lanes.api.AggregateId;
import java.time.Instant;
import java.util.Objects;

/**
 * A message the dispatcher gave up on, with why.
 *
 * @param dispatcher name of the dispatcher that parked it
 * @param aggregateId the aggregate the message was for
 * @param message the message itself, unchanged, so it can be inspected or replayed
 * @param error the last failure
 * @param attempts how many times the handler ran
 * @param parkedAt when it was parked
 */
public record ParkedMessage(
        String dispatcher, AggregateId aggregateId, Object message, Throwable error, int attempts, Instant parkedAt) {

    public ParkedMessage {
        Objects.requireNonNull(dispatcher, "dispatcher");
        Objects.requireNonNull(aggregateId, "aggregateId");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(parkedAt, "parkedAt");
    }
}
