package dev.lanes.command;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.messaging.CommandMessage;

/**
 * A command in its lane that counts the attempts the lane makes, so that {@link ParkingCommandHandler} parks it after
 * the last one, before it is acknowledged to its bus; everything else goes to the exchange as delivered. Its lane runs
 * one attempt at a time and hands the lane from one attempt to the next through a worker queue or a scheduled retry,
 * which orders the count's updates.
 */
final class AttemptedCommand implements MessageExchange<CommandMessage> {
    private final MessageExchange<CommandMessage> delivered;
    private int attempts;
    /** Written by the lane's handler before its {@code Mono} completes, read by the dispatcher after. */
    private volatile boolean setAside;
    /** Set while the dead-letter queue stores the command; read by the handler-timeout sweep. */
    private volatile boolean storing;

    AttemptedCommand(MessageExchange<CommandMessage> delivered) {
        this.delivered = delivered;
    }

    /** Counts one more attempt; returns its number, from 1. */
    int nextAttempt() {
        return ++attempts;
    }

    /** Whether no attempt ran yet: the first time the lane sees the command. */
    boolean untried() {
        return attempts == 0;
    }

    void markSetAside() {
        setAside = true;
    }

    void storing(boolean storing) {
        this.storing = storing;
    }

    @Override
    public boolean setAside() {
        return setAside;
    }

    /** While the queue stores the command (tried until it is stored), the lane's handler timeout does not apply. */
    @Override
    public boolean handlerTimed() {
        return !storing;
    }

    @Override
    public CommandMessage message() {
        return delivered.message();
    }

    @Override
    public AggregateId aggregateId() {
        return delivered.aggregateId();
    }

    @Override
    public void acknowledge() {
        delivered.acknowledge();
    }

    @Override
    public void reject(Throwable reason) {
        delivered.reject(reason);
    }

    @Override
    public boolean mayBeRedelivered() {
        return delivered.mayBeRedelivered();
    }

    @Override
    public String toString() {
        return delivered.toString();
    }
}
