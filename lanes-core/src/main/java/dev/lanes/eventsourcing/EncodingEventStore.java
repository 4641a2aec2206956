package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A store of objects made to keep encoded payloads: every event's payload goes through the {@link PayloadCodec} before
 * the delegate appends it (as an {@link EncodedPayload}), and comes back through it on every read path. The delegate
 * never sees a user payload, and no reader sees an {@link EncodedPayload}: {@link #hasRequestId} is the only read that
 * returns no payload and decodes nothing.
 *
 * <p>An append encodes the whole stream before it reaches the delegate, so an encoding failure stores nothing. A read
 * decodes each stream as it is emitted; a failure ends the read with a {@link PayloadCodecException} naming the
 * aggregate, version, event and stored type and revision. Filtered {@code readAll} filters in the delegate, before
 * decoding, so a stream of another type that no longer decodes does not stop its readers.
 */
final class EncodingEventStore implements EventStore {
    private final EventStore delegate;
    private final PayloadCodec codec;

    EncodingEventStore(EventStore delegate, PayloadCodec codec) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.codec = Objects.requireNonNull(codec, "codec");
    }

    @Override
    public Mono<Void> append(DomainEventStream stream) {
        return Mono.defer(() -> delegate.append(encode(Objects.requireNonNull(stream, "stream"))));
    }

    @Override
    public Flux<DomainEventStream> load(AggregateId aggregateId, int fromVersion, int toVersion) {
        return delegate.load(aggregateId, fromVersion, toVersion).map(this::decode);
    }

    @Override
    public Flux<PositionedStream> readAll(long fromPosition, int limit) {
        return delegate.readAll(fromPosition, limit).map(this::decode);
    }

    @Override
    public Flux<PositionedStream> readAll(long fromPosition, int limit, Set<MaterializedNamedAggregate> types) {
        return delegate.readAll(fromPosition, limit, types).map(this::decode);
    }

    @Override
    public Flux<PositionedStream> readAll(
            long fromPosition, int limit, Set<MaterializedNamedAggregate> types, Segment segment) {
        return delegate.readAll(fromPosition, limit, types, segment).map(this::decode);
    }

    @Override
    public Mono<Boolean> hasRequestId(AggregateId aggregateId, String requestId) {
        return delegate.hasRequestId(aggregateId, requestId);
    }

    @Override
    public Mono<DomainEventStream> findByRequestId(AggregateId aggregateId, String requestId) {
        return delegate.findByRequestId(aggregateId, requestId).map(this::decode);
    }

    @Override
    public Mono<Void> recordRefusal(CommandRefusal refusal) {
        return delegate.recordRefusal(refusal);
    }

    @Override
    public Mono<RequestOutcome> findRequest(AggregateId aggregateId, String requestId) {
        return delegate.findRequest(aggregateId, requestId).map(outcome -> {
            DomainEventStream stored = outcome.stream();
            return stored == null ? outcome : RequestOutcome.stored(decode(stored));
        });
    }

    private DomainEventStream encode(DomainEventStream stream) {
        List<DomainEvent> encoded = new ArrayList<>(stream.events().size());
        for (DomainEvent event : stream.events()) {
            encoded.add(new DomainEvent(event.sequence(), encode(stream, event)));
        }
        return withEvents(stream, encoded);
    }

    private EncodedPayload encode(DomainEventStream stream, DomainEvent event) {
        try {
            return Objects.requireNonNull(codec.encode(event.payload()), "the codec encoded the payload as null");
        } catch (RuntimeException e) {
            throw PayloadCodecException.encoding(stream, event.sequence(), event.payload(), e);
        }
    }

    private PositionedStream decode(PositionedStream stored) {
        return new PositionedStream(stored.position(), decode(stored.stream()));
    }

    private DomainEventStream decode(DomainEventStream stored) {
        List<DomainEvent> decoded = new ArrayList<>(stored.events().size());
        for (DomainEvent event : stored.events()) {
            decoded.add(new DomainEvent(event.sequence(), decode(stored, event)));
        }
        return withEvents(stored, decoded);
    }

    private Object decode(DomainEventStream stream, DomainEvent event) {
        EncodedPayload payload = (EncodedPayload) event.payload();
        try {
            return Objects.requireNonNull(codec.decode(payload), "the codec decoded the payload as null");
        } catch (RuntimeException e) {
            throw PayloadCodecException.decoding(stream.aggregateId(), stream.version(), event.sequence(), payload, e);
        }
    }

    private static DomainEventStream withEvents(DomainEventStream stream, List<DomainEvent> events) {
        return new DomainEventStream(
                stream.id(),
                stream.aggregateId(),
                stream.version(),
                stream.requestId(),
                stream.commandId(),
                events,
                stream.createdAt(),
                stream.headers());
    }

    @Override
    public boolean durable() {
        return delegate.durable();
    }

    @Override
    public String toString() {
        return delegate + " encoded by " + codec;
    }
}
