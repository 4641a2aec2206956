package dev.lanes.processing;

import dev.lanes.dispatch.MessageExchange;
import dev.lanes.internal.exchange.AttemptedExchange;

/** A saga reply in its lane (see {@link AttemptedExchange}); parked by {@link DeadLetterSequencer#handleReply}. */
final class AttemptedReply extends AttemptedExchange<Object, Object> {
    private final SagaReply<?> reply;

    AttemptedReply(MessageExchange<Object> delivered) {
        super(delivered);
        if (!(delivered.message() instanceof SagaReply<?> carried)) {
            throw new IllegalArgumentException("not a saga reply: " + delivered);
        }
        this.reply = carried;
    }

    SagaReply<?> reply() {
        return reply;
    }

    @Override
    public Object message() {
        return reply;
    }
}
