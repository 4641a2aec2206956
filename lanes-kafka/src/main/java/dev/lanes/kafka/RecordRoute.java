package dev.lanes.kafka;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.flow.IntakeGate;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

/**
 * The flux one receiver (one aggregate type) reads from a consumer. Emission happens on the consumer thread only, and
 * only within the receiver's outstanding demand, so the sink's buffer stays empty. One subscriber; a cancelled route
 * takes nothing more (what its partitions still hold is never committed past, so the next owner reads it).
 *
 * @param <M> the message type
 */
final class RecordRoute<M> {
    final MaterializedNamedAggregate type;
    final @Nullable IntakeGate gate;
    private final Flux<MessageExchange<M>> flux;
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private volatile @Nullable FluxSink<MessageExchange<M>> sink;
    private volatile boolean cancelled;

    RecordRoute(MaterializedNamedAggregate type, @Nullable IntakeGate gate, String owner) {
        this.type = type;
        this.gate = gate;
        this.flux = Flux.create(
                emitter -> {
                    if (!subscribed.compareAndSet(false, true)) {
                        emitter.error(new IllegalStateException(owner + " has one receiver for " + type));
                        return;
                    }
                    emitter.onDispose(() -> cancelled = true);
                    sink = emitter;
                },
                FluxSink.OverflowStrategy.BUFFER);
    }

    Flux<MessageExchange<M>> flux() {
        return flux;
    }

    boolean cancelled() {
        return cancelled;
    }

    /** Outstanding demand of the receiver; 0 before it subscribed or after it cancelled. */
    long demand() {
        FluxSink<MessageExchange<M>> current = sink;
        return current == null || cancelled ? 0 : current.requestedFromDownstream();
    }

    /** On the consumer thread, within {@link #demand()}. */
    void emit(MessageExchange<M> exchange) {
        FluxSink<MessageExchange<M>> current = sink;
        if (current == null) {
            throw new IllegalStateException(type + " has no receiver yet");
        }
        current.next(exchange);
    }
}
