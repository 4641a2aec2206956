package dev.lanes.command;

import dev.lanes.api.AggregateId;
import java.util.List;
import java.util.Objects;

/**
 * What a command achieved by the stage the sender waited for.
 *
 * @param stage the stage reached
 * @param version the aggregate's version after the command; 0 before {@code PROCESSED} or when it produced no events
 * @param events the event payloads it produced (empty before {@code PROCESSED})
 */
public record CommandResult(
        String commandId,
        String requestId,
        AggregateId aggregateId,
        WaitStage stage,
        int version,
        List<Object> events) {

    public CommandResult {
        Objects.requireNonNull(commandId, "commandId");
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(aggregateId, "aggregateId");
        Objects.requireNonNull(stage, "stage");
        events = List.copyOf(events);
    }
}
