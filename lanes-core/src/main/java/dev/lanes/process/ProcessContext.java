package dev.lanes.process;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Require;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a {@link ProcessReaction} records: commands to send, deadlines to schedule or cancel, the end of the process.
 * Nothing happens while the reaction runs: what it recorded is stored with its new state, then the process manager's
 * saga sends the commands through its outbox (outside any lane, with request ids derived from the stored events, so a
 * redelivery never sends twice) and schedules or cancels the deadlines, in the order recorded.
 *
 * <p>Used by one reaction, on its thread; not valid after the reaction returned.
 */
public final class ProcessContext {
    private final String process;
    private final AggregateId instance;
    private final Instant now;
    private final int input;
    private final Set<String> deadlineNames;
    private final Map<String, String> live;
    private final List<Object> recorded = new ArrayList<>();
    private boolean ended;

    ProcessContext(
            String process,
            AggregateId instance,
            Instant now,
            int input,
            Map<String, String> live,
            Set<String> deadlineNames) {
        this.process = process;
        this.instance = instance;
        this.now = now;
        this.input = input;
        this.live = new HashMap<>(live);
        this.deadlineNames = deadlineNames;
    }

    /** The instance: the process manager's aggregate type and the business key. */
    public AggregateId instance() {
        return instance;
    }

    /** The business key. */
    public String key() {
        return instance.id();
    }

    /** The process manager's clock when this input is handled: what {@link #scheduleAfter} counts from. */
    public Instant now() {
        return now;
    }

    /** Records {@code command} for {@code target}, sent once this reaction's result is stored. */
    public ProcessContext send(AggregateId target, Object command) {
        requireOpen("send " + command);
        recorded.add(ProcessEvent.CommandIssued.to(Objects.requireNonNull(target, "target")));
        recorded.add(Objects.requireNonNull(command, "command"));
        return this;
    }

    /**
     * Schedules the deadline {@code name} at {@code at}, replacing a live one of that name.
     *
     * @throws IllegalArgumentException naming the process and the names it has reactions for, when {@code name} has none
     */
    public ProcessContext scheduleAt(String name, Instant at) {
        Require.notBlank(name, "name");
        Objects.requireNonNull(at, "at");
        requireOpen("schedule " + name);
        if (!deadlineNames.contains(name)) {
            throw new IllegalArgumentException("Process manager " + process + " has no reaction for deadline '" + name
                    + "' (it has " + deadlineNames + "): register one with onDeadline");
        }
        cancel(name);
        String id = process + ":" + instance.tenantId() + ":" + instance.id() + ":" + name + ":" + input;
        live.put(name, id);
        recorded.add(new ProcessEvent.DeadlineScheduled(id, name, at));
        return this;
    }

    /** Schedules the deadline {@code name} {@code delay} after {@link #now()}, replacing a live one of that name. */
    public ProcessContext scheduleAfter(String name, Duration delay) {
        return scheduleAt(name, now.plus(Require.notNegative(delay, "delay")));
    }

    /** Cancels the live deadline {@code name}, if there is one. */
    public ProcessContext cancel(String name) {
        String id = live.remove(Require.notBlank(name, "name"));
        if (id != null) {
            recorded.add(new ProcessEvent.DeadlineCancelled(id, name));
        }
        return this;
    }

    /** Whether a deadline {@code name} is live (scheduled, not yet reached nor cancelled). */
    public boolean hasDeadline(String name) {
        return live.containsKey(name);
    }

    /** Ends the process: its live deadlines are cancelled, and it ignores every later input. */
    public ProcessContext end(String reason) {
        Objects.requireNonNull(reason, "reason");
        requireOpen("end");
        for (String name : List.copyOf(live.keySet())) {
            cancel(name);
        }
        recorded.add(new ProcessEvent.Ended(reason));
        ended = true;
        return this;
    }

    List<Object> recorded() {
        return List.copyOf(recorded);
    }

    private void requireOpen(String what) {
        if (ended) {
            throw new IllegalStateException(
                    "Process manager " + process + " instance " + instance.id() + " cannot " + what + ": it ended");
        }
    }
}
