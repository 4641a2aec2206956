package dev.lanes.process;

import dev.lanes.internal.Require;
import java.time.Instant;
import java.util.Objects;

/**
 * A process manager's deadline that became due: the command its {@link dev.lanes.deadline.DeadlineRunner} sends to the
 * instance, and the input of the reaction registered with {@link ProcessManager.Builder#onDeadline}. A deadline that
 * was cancelled or replaced in the meantime (its id no longer live in the instance) is ignored.
 *
 * @param deadlineId the id it was scheduled under
 * @param name its name in the instance
 * @param dueAt when it was due
 */
public record ProcessDeadline(String deadlineId, String name, Instant dueAt) {

    public ProcessDeadline {
        Require.notBlank(deadlineId, "deadlineId");
        Require.notBlank(name, "name");
        Objects.requireNonNull(dueAt, "dueAt");
    }
}
