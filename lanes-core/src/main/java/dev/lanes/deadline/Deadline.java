package dev.lanes.deadline;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Require;
import java.time.Instant;
import java.util.Objects;

/**
 * A scheduled deadline: when it is due, {@code payload} is sent as a command to {@code target}, with the request id
 * {@link #requestId()}.
 *
 * @param id unique among all deadlines of a store; scheduling the same id again replaces it
 * @param target the aggregate (or process manager instance) that handles the payload
 * @param name what {@link Deadlines#cancel} finds it by, with its target
 * @param dueAt when it is due, on the clock of the {@link DeadlineRunner}
 * @param payload the command sent to {@code target}
 */
public record Deadline(String id, AggregateId target, String name, Instant dueAt, Object payload) {

    /** The prefix of the request id of a deadline's command. */
    public static final String REQUEST_PREFIX = "deadline:";

    public Deadline {
        Require.notBlank(id, "id");
        Objects.requireNonNull(target, "target");
        Require.notBlank(name, "name");
        Objects.requireNonNull(dueAt, "dueAt");
        Objects.requireNonNull(payload, "payload");
    }

    /** {@code deadline:<id>}: the event store refuses to apply a second command with it, so a refiring is harmless. */
    public String requestId() {
        return REQUEST_PREFIX + id;
    }

    @Override
    public String toString() {
        return "Deadline[" + id + ", " + name + " for " + target + " at " + dueAt + ", "
                + payload.getClass().getName() + "]";
    }
}
