package dev.lanes.processing.saga;

import dev.lanes.dispatch.MessageExchange;
import dev.lanes.internal.Internal;
import dev.lanes.internal.exchange.AttemptedExchange;
import dev.lanes.processing.deadletter.DeadLetterSequencer;

/** A saga reply in its lane (see {@link AttemptedExchange}); parked by {@link DeadLetterSequencer#handleReply}. */
@Internal
public final class AttemptedReply extends AttemptedExchange<Object, Object> {
    private final SagaReply<?> reply;

    public AttemptedReply(MessageExchange<Object> delivered) {
        super(delivered);
        if (!(delivered.message() instanceof SagaReply<?> carried)) {
            throw new IllegalArgumentException("not a saga reply: " + delivered);
        }
        this.reply = carried;
    }

    public SagaReply<?> reply() {
        return reply;
    }

    @Override
    public Object message() {
        return reply;
    }
}
