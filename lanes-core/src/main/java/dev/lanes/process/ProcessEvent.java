package dev.lanes.process;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.internal.Require;
import java.time.Instant;
import java.util.Objects;

/**
 * The events a process manager instance stores besides its states. Each handled input appends one stream: a {@link
 * DeadlineReached} when the input was a deadline, the new state (an instance of the process's state class), then for
 * each command sent a {@link CommandIssued} followed by the command itself, the {@link DeadlineScheduled} and {@link
 * DeadlineCancelled} records, and {@link Ended} last when the process ended. Every field is a plain value, so any
 * serializer that stores the state and command classes stores these.
 */
public sealed interface ProcessEvent {

    /** The next event of the stream is a command sent to {@link #target()}. */
    record CommandIssued(String contextName, String aggregateName, String aggregateId, String tenantId)
            implements ProcessEvent {

        public CommandIssued {
            Require.notBlank(contextName, "contextName");
            Require.notBlank(aggregateName, "aggregateName");
            Require.notBlank(aggregateId, "aggregateId");
            Require.notBlank(tenantId, "tenantId");
        }

        static CommandIssued to(AggregateId target) {
            return new CommandIssued(target.contextName(), target.aggregateName(), target.id(), target.tenantId());
        }

        public AggregateId target() {
            return AggregateId.of(NamedAggregate.of(contextName, aggregateName), aggregateId, tenantId);
        }
    }

    /** A deadline is live under {@code name} until it is reached, cancelled, replaced, or the process ends. */
    record DeadlineScheduled(String deadlineId, String name, Instant dueAt) implements ProcessEvent {

        public DeadlineScheduled {
            Require.notBlank(deadlineId, "deadlineId");
            Require.notBlank(name, "name");
            Objects.requireNonNull(dueAt, "dueAt");
        }
    }

    /** The deadline {@code deadlineId} was cancelled (or replaced by another of the same name). */
    record DeadlineCancelled(String deadlineId, String name) implements ProcessEvent {

        public DeadlineCancelled {
            Require.notBlank(deadlineId, "deadlineId");
            Require.notBlank(name, "name");
        }
    }

    /** The deadline {@code deadlineId} was reached and handled: once, whatever how often it fired. */
    record DeadlineReached(String deadlineId, String name) implements ProcessEvent {

        public DeadlineReached {
            Require.notBlank(deadlineId, "deadlineId");
            Require.notBlank(name, "name");
        }
    }

    /** The process ended: its live deadlines were cancelled before, and it ignores every later input. */
    record Ended(String reason) implements ProcessEvent {

        public Ended {
            Objects.requireNonNull(reason, "reason");
        }
    }
}
