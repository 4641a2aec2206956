package dev.lanes.test.command;

import dev.lanes.eventsourcing.EventStore;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.test.ForwardingEventStore;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * An event store that holds every append made while {@link #hold} is set until {@link #release()}, so a test can keep
 * a command inside its lane's handler for as long as it needs, without blocking a thread.
 */
final class HeldEventStore extends ForwardingEventStore {
    final AtomicBoolean hold = new AtomicBoolean();
    private final Sinks.Empty<Void> released = Sinks.empty();

    HeldEventStore(EventStore delegate) {
        super(delegate);
    }

    /** Lets every held append, and every later one, through. */
    void release() {
        released.tryEmitEmpty();
    }

    @Override
    public Mono<Void> append(DomainEventStream stream) {
        return Mono.defer(() -> hold.get()
                ? released.asMono().then(delegate().append(stream))
                : delegate().append(stream));
    }
}
