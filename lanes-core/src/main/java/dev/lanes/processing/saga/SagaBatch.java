package dev.lanes.processing.saga;

import dev.lanes.internal.Internal;
import java.util.ArrayList;
import java.util.List;

/** The commands one handling (of a stream or of a reply) recorded; handed to the outbox once it succeeded. */
@Internal
public final class SagaBatch {
    private final List<SagaOutbox.Intent> intents = new ArrayList<>();
    private boolean closed;

    synchronized void add(SagaOutbox.Intent intent) {
        if (closed) {
            throw new IllegalStateException("A saga recorded " + intent.command()
                    + " after its function completed; call SagaContext.send before the returned Mono completes");
        }
        intents.add(intent);
    }

    /** No more sends; the recorded ones, in order. */
    synchronized List<SagaOutbox.Intent> close() {
        closed = true;
        return List.copyOf(intents);
    }
}
