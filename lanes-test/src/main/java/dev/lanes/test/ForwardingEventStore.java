package dev.lanes.test;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.eventsourcing.CommandRefusal;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.PositionedStream;
import dev.lanes.eventsourcing.RequestOutcome;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.messaging.DomainEventStream;
import java.util.Objects;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * An event store that hands every call to another, for decorators in tests: a subclass overrides what it changes
 * (usually {@link #append}) and inherits the rest, including the calls with defaults in {@link EventStore}, which go to
 * the delegate's own versions.
 */
public abstract class ForwardingEventStore implements EventStore {
    private final EventStore delegate;

    protected ForwardingEventStore(EventStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The store every call goes to. */
    protected final EventStore delegate() {
        return delegate;
    }

    @Override
    public Mono<Void> append(DomainEventStream stream) {
        return delegate.append(stream);
    }

    @Override
    public Flux<DomainEventStream> load(AggregateId aggregateId, int fromVersion, int toVersion) {
        return delegate.load(aggregateId, fromVersion, toVersion);
    }

    @Override
    public Flux<DomainEventStream> load(AggregateId aggregateId, int fromVersion) {
        return delegate.load(aggregateId, fromVersion);
    }

    @Override
    public Flux<PositionedStream> readAll(long fromPosition, int limit) {
        return delegate.readAll(fromPosition, limit);
    }

    @Override
    public Flux<PositionedStream> readAll(long fromPosition, int limit, Set<MaterializedNamedAggregate> types) {
        return delegate.readAll(fromPosition, limit, types);
    }

    @Override
    public Flux<PositionedStream> readAll(
            long fromPosition, int limit, Set<MaterializedNamedAggregate> types, Segment segment) {
        return delegate.readAll(fromPosition, limit, types, segment);
    }

    @Override
    public Mono<Boolean> hasRequestId(AggregateId aggregateId, String requestId) {
        return delegate.hasRequestId(aggregateId, requestId);
    }

    @Override
    public boolean durable() {
        return delegate.durable();
    }

    @Override
    public Mono<DomainEventStream> findByRequestId(AggregateId aggregateId, String requestId) {
        return delegate.findByRequestId(aggregateId, requestId);
    }

    @Override
    public Mono<Void> recordRefusal(CommandRefusal refusal) {
        return delegate.recordRefusal(refusal);
    }

    @Override
    public Mono<RequestOutcome> findRequest(AggregateId aggregateId, String requestId) {
        return delegate.findRequest(aggregateId, requestId);
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + delegate + "]";
    }
}
