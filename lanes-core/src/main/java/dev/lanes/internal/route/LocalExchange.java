package dev.lanes.internal.route;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.MessageExchange;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * An exchange of an in-memory route: settling it calls back into whoever sent the message.
 *
 * @param <M> the message type
 */
public final class LocalExchange<M> implements MessageExchange<M> {
    private final M message;
    private final AggregateId aggregateId;
    private final Runnable onAcknowledge;
    private final Consumer<Throwable> onReject;

    public LocalExchange(M message, AggregateId aggregateId, Runnable onAcknowledge, Consumer<Throwable> onReject) {
        this.message = Objects.requireNonNull(message, "message");
        this.aggregateId = Objects.requireNonNull(aggregateId, "aggregateId");
        this.onAcknowledge = onAcknowledge;
        this.onReject = onReject;
    }

    @Override
    public M message() {
        return message;
    }

    @Override
    public AggregateId aggregateId() {
        return aggregateId;
    }

    @Override
    public void acknowledge() {
        onAcknowledge.run();
    }

    @Override
    public void reject(Throwable reason) {
        onReject.accept(reason);
    }

    @Override
    public String toString() {
        return "LocalExchange[" + message + "]";
    }
}
