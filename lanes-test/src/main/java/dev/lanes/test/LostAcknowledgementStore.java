package dev.lanes.test;

import dev.lanes.eventsourcing.EventStore;
import dev.lanes.messaging.DomainEventStream;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * An event store decorator for tests of ambiguous commits: once {@link #loseNextAcknowledgement()} is called, the next
 * append is committed by the real store and then fails with the given error, as a connection lost after the commit
 * but before its acknowledgement would. Everything else goes to the real store.
 */
public final class LostAcknowledgementStore extends ForwardingEventStore {
    private final Supplier<? extends Throwable> lostAcknowledgement;
    private final AtomicBoolean loseNext = new AtomicBoolean();

    /**
     * @param lostAcknowledgement the error the store's own driver raises when a connection fails after a commit
     */
    public LostAcknowledgementStore(EventStore delegate, Supplier<? extends Throwable> lostAcknowledgement) {
        super(delegate);
        this.lostAcknowledgement = Objects.requireNonNull(lostAcknowledgement, "lostAcknowledgement");
    }

    /** The next append commits, then fails. */
    public void loseNextAcknowledgement() {
        loseNext.set(true);
    }

    @Override
    public Mono<Void> append(DomainEventStream stream) {
        return delegate()
                .append(stream)
                .then(Mono.defer(
                        () -> loseNext.getAndSet(false) ? Mono.error(lostAcknowledgement.get()) : Mono.empty()));
    }
}
