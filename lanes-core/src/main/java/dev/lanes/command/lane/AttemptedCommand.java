package dev.lanes.command.lane;

import dev.lanes.dispatch.MessageExchange;
import dev.lanes.internal.exchange.AttemptedExchange;
import dev.lanes.messaging.CommandMessage;

/**
 * A command in its lane, counting the lane's attempts so that {@link ParkingCommandHandler} parks it after the last one,
 * before it is acknowledged to its bus (see {@link AttemptedExchange}).
 */
final class AttemptedCommand extends AttemptedExchange<CommandMessage, CommandMessage> {

    AttemptedCommand(MessageExchange<CommandMessage> delivered) {
        super(delivered);
    }

    @Override
    public CommandMessage message() {
        return delivered.message();
    }
}
