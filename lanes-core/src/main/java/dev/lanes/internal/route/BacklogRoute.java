package dev.lanes.internal.route;

import dev.lanes.flow.Backlog;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * A single-consumer in-memory route whose producers never wait: {@link #offer} always takes the value while the
 * consumer is there. What it holds is counted in an optional {@link Backlog}, so a budget can pause the intake that
 * feeds the producers instead of blocking them. Values handed to the consumer, and values discarded when it cancels,
 * leave the backlog.
 *
 * <p>Emission is serialized by this route's monitor, as Reactor sinks require; the consumer may be called under it.
 *
 * @param <T> the value type
 */
public final class BacklogRoute<T> {
    private final Sinks.Many<T> sink;
    private final @Nullable Backlog backlog;
    private final Flux<T> flux;

    /**
     * @param backlog where the values it holds are counted, or {@code null} when nothing paces its producers
     * @param onDiscard called with each value still held when the consumer cancels (after it left the backlog)
     */
    public BacklogRoute(@Nullable Backlog backlog, Consumer<T> onDiscard) {
        this.backlog = backlog;
        this.sink = Sinks.unsafe()
                .many()
                .unicast()
                .onBackpressureBuffer(Queues.<T>unbounded().get());
        @SuppressWarnings("unchecked")
        Class<T> any = (Class<T>) (Class<?>) Object.class;
        this.flux = sink.asFlux().doOnNext(value -> left()).doOnDiscard(any, value -> {
            left();
            onDiscard.accept(value);
        });
    }

    /** The single consumer's view; a second subscriber is rejected by Reactor. */
    public Flux<T> flux() {
        return flux;
    }

    /** Takes {@code value}; {@code false} when the consumer is gone (cancelled or terminated), and nothing was kept. */
    public boolean offer(T value) {
        if (backlog != null) {
            backlog.add();
        }
        Sinks.EmitResult result;
        synchronized (this) {
            result = sink.tryEmitNext(value);
        }
        if (result.isFailure()) {
            left();
            return false;
        }
        return true;
    }

    private void left() {
        if (backlog != null) {
            backlog.remove();
        }
    }

    @Override
    public String toString() {
        return "BacklogRoute[" + (backlog == null ? "no budget" : backlog) + "]";
    }
}
