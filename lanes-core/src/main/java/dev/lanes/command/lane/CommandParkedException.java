package dev.lanes.command.lane;

import dev.lanes.api.LanesException;
import dev.lanes.messaging.CommandMessage;

/**
 * A command was not run: its aggregate has parked commands (see {@link CommandParking}), and it was parked behind them,
 * durably with a durable dead-letter queue. It runs, in order, when the sequence is retried or its head skipped ({@code
 * lanes.deadLetters()}, or {@code lanes parked retry|skip}); a resend with the same request id learns its outcome then.
 * Not recoverable by resending before that: the resend is parked behind as well.
 */
public final class CommandParkedException extends LanesException {
    private static final long serialVersionUID = 1L;

    /**
     * @param processor the name the aggregate's parked commands are kept under ({@code commands:<type>})
     * @param command the command that was parked behind them
     */
    public CommandParkedException(String processor, CommandMessage command) {
        super(command + " was parked behind the parked commands of " + command.aggregateId() + " (" + processor
                + "); it runs when that sequence is retried or its head skipped (lanes parked retry --processor "
                + processor + " --aggregate " + command.aggregateId() + ")");
    }

    @Override
    public boolean isRecoverable() {
        return false;
    }
}
