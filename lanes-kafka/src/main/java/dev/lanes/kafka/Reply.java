package dev.lanes.kafka;

import dev.lanes.api.AggregateId;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What the instance that handled a command tells the instance that sent it: processed (version and events; version 0
 * and no events when it changed nothing) or failed.
 *
 * @param to the sending instance
 * @param from the handling instance
 */
record Reply(
        String to,
        String from,
        String commandId,
        String requestId,
        AggregateId aggregateId,
        int version,
        List<Object> events,
        @Nullable Failure failure) {

    /** A failure, by the name and message of its exception type (the exception itself stays on its instance). */
    record Failure(String type, String message, boolean recoverable) {}

    Reply {
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(commandId, "commandId");
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(aggregateId, "aggregateId");
        events = List.copyOf(events);
    }
}
