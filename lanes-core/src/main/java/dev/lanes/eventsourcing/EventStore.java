package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.internal.Require;
import dev.lanes.messaging.DomainEventStream;
import java.util.Objects;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Append-only storage of event streams, one gapless version sequence per aggregate.
 *
 * <p>Every implementation must pass {@code dev.lanes.test.EventStoreContract} (module {@code lanes-test}). Methods
 * validate their arguments and signal errors through the returned publisher; none blocks the calling thread.
 */
public interface EventStore {

    /**
     * Appends a stream whose {@link DomainEventStream#version()} is the aggregate's expected next version, atomically
     * (all its events or none).
     *
     * <p>Errors: {@link DuplicateAggregateIdException} when version 1 is taken (another create won),
     * {@link EventVersionConflictException} when a later version is taken (another writer won; recoverable: reload and
     * retry), {@link DuplicateRequestIdException} when the aggregate already has a stream for the request id or (a
     * store that overrides {@link #recordRefusal}) a refusal of it, {@link IllegalArgumentException} when the version
     * would leave a gap. The version is checked before the request id.
     *
     * <p>The request id check is the command path's idempotency check: a command is decided and appended without
     * asking the store for its request id first, and a resend of a request id the store holds learns it here, then
     * is answered with what {@link #findRequest} finds. So a store that remembers refusals must refuse an append under
     * a refused request id too, in the same atomic step as the append: else a resend that the aggregate's moved-on
     * state now accepts would be stored instead of being answered with its refusal.
     */
    Mono<Void> append(DomainEventStream stream);

    /**
     * The aggregate's streams with {@code fromVersion <= version <= toVersion}, in version order. Empty for an
     * aggregate that does not exist.
     *
     * @throws IllegalArgumentException (as an error signal) if {@code fromVersion < 1} or {@code toVersion <
     *     fromVersion}
     */
    Flux<DomainEventStream> load(AggregateId aggregateId, int fromVersion, int toVersion);

    /** Every stream of the aggregate from {@code fromVersion} on, in version order. */
    default Flux<DomainEventStream> load(AggregateId aggregateId, int fromVersion) {
        return load(aggregateId, fromVersion, Integer.MAX_VALUE);
    }

    /**
     * The streams of every aggregate with {@code position >= fromPosition}, in increasing position order, at most
     * {@code limit} of them: one page of the store's global order ({@link PositionedStream}). Page on with the last
     * position read plus one; an empty page means nothing more is readable <em>now</em> (more may follow).
     *
     * <p><b>Nothing is skipped for good.</b> A page ends before any stream whose append may still become visible at a
     * lower position than one the page returns: when a page returns position {@code p}, every stream that will ever
     * hold a position below {@code p} is already visible (or will never be). So a reader that continues after the last
     * position it read misses nothing, even while appends commit out of position order. A store may therefore return
     * fewer than {@code limit} streams (or none) while an earlier append is still in flight.
     *
     * <p>The default fails with {@link UnsupportedOperationException}: a store without global positions cannot feed
     * tracking processors.
     *
     * @throws IllegalArgumentException (as an error signal) if {@code fromPosition < 0} or {@code limit < 1}
     */
    default Flux<PositionedStream> readAll(long fromPosition, int limit) {
        return Flux.error(new UnsupportedOperationException(
                this + " keeps no global positions: readAll is not supported (needed by tracking processors)"));
    }

    /**
     * As {@link #readAll(long, int)}, of the streams of the given aggregate types only: a page holds up to {@code
     * limit} of them, and ends under the same rule. A store filters before it decodes, so a stream of another type that
     * it cannot decode (a payload class that does not exist here) never stops a reader of these types; this is what
     * tracking processors read. The default filters {@link #readAll(long, int)}, which gives shorter pages and decodes
     * every stream: stores should override it.
     *
     * @throws IllegalArgumentException (as an error signal) if {@code fromPosition < 0}, {@code limit < 1} or {@code
     *     types} is empty
     */
    default Flux<PositionedStream> readAll(long fromPosition, int limit, Set<MaterializedNamedAggregate> types) {
        if (types.isEmpty()) {
            return Flux.error(new IllegalArgumentException("types must not be empty"));
        }
        Set<MaterializedNamedAggregate> wanted = Set.copyOf(types);
        return readAll(fromPosition, limit)
                .filter(positioned -> wanted.contains(positioned.aggregateId().materialize()));
    }

    /**
     * As {@link #readAll(long, int, Set)}, of the streams of {@code segment} only ({@link Segment#contains}): what a
     * tracking processor split into segments reads for one of them. A page holds up to {@code limit} streams of the
     * segment and ends under the same rule. The default reads pages of {@link #readAll(long, int, Set)} and keeps the
     * segment's streams, reading on until it has {@code limit} of them or a page comes back short (nothing more is
     * readable now); stores should filter in their query.
     *
     * @throws IllegalArgumentException (as an error signal) as {@link #readAll(long, int, Set)}
     */
    default Flux<PositionedStream> readAll(
            long fromPosition, int limit, Set<MaterializedNamedAggregate> types, Segment segment) {
        if (segment.count() == 1) {
            return readAll(fromPosition, limit, types);
        }
        return SegmentPages.read(this, fromPosition, limit, types, segment);
    }

    /**
     * How far a reader of {@code segment} (of every aggregate type) at {@code checkpoint} is behind: the segment's last
     * position, how many of its streams are above the checkpoint and when the first of them was stored. For operators
     * ({@code lanes processors list}); the default reads every stream above the checkpoint, stores should count in
     * their query.
     */
    default Mono<SegmentLag> lag(Segment segment, long checkpoint) {
        return readAll(checkpoint + 1, Integer.MAX_VALUE)
                .filter(positioned -> segment.contains(positioned.aggregateId()))
                .reduce(
                        new SegmentLag(checkpoint, 0, null),
                        (lag, positioned) -> new SegmentLag(
                                positioned.position(),
                                lag.streams() + 1,
                                lag.oldest() != null
                                        ? lag.oldest()
                                        : positioned.stream().createdAt()));
    }

    /** Whether the aggregate has a stream for this request id (the authoritative idempotency check). */
    Mono<Boolean> hasRequestId(AggregateId aggregateId, String requestId);

    /**
     * The stream the aggregate stored for this request id (its version and events), or empty when it has none. This is
     * how a command whose outcome its sender could not learn (a stop, a timeout, a commit whose acknowledgement was
     * lost) is answered with what it stored when it is sent again with the same request id.
     *
     * <p>The default reads every stream of the aggregate; stores should answer from an index.
     *
     * @throws NullPointerException or {@link IllegalArgumentException} (as an error signal) for a null aggregate id or
     *     a null or blank request id
     */
    default Mono<DomainEventStream> findByRequestId(AggregateId aggregateId, String requestId) {
        return Mono.defer(() -> {
            Objects.requireNonNull(aggregateId, "aggregateId");
            Require.notBlank(requestId, "requestId");
            return load(aggregateId, 1)
                    .filter(stream -> stream.requestId().equals(requestId))
                    .next();
        });
    }

    /**
     * Remembers that the aggregate refused a command by a business rule, under its request id, so that {@link
     * #findRequest} answers a resend with the refusal, and {@link #append} refuses a stream under it ({@link
     * DuplicateRequestIdException}). The first refusal of a request id stays; a refusal of a request id that stored a
     * stream changes nothing (the stream wins).
     *
     * <p>The default remembers nothing (and says so by completing): a store that does not override it lets a refused
     * request id be decided again when it is resent. Both shipped stores remember.
     */
    default Mono<Void> recordRefusal(CommandRefusal refusal) {
        return Mono.fromRunnable(() -> Objects.requireNonNull(refusal, "refusal"));
    }

    /**
     * What the store holds for a request id on an aggregate, in one read: the stream it stored ({@link
     * #findByRequestId}) or the refusal it got ({@link #recordRefusal}); empty when it has neither. A command's lane
     * asks this when the store refused its append as a {@link DuplicateRequestIdException}, when its handler failed or
     * refused it, or decided nothing (a resend is answered with what its request id got the first time), and before
     * deciding a command its bus may have delivered before; the gateway asks it before sending a command whose sender
     * waits for its projections.
     *
     * <p>The default asks {@link #findByRequestId} only: it knows no refusals.
     *
     * @throws NullPointerException or {@link IllegalArgumentException} (as an error signal) for a null aggregate id or
     *     a null or blank request id
     */
    default Mono<RequestOutcome> findRequest(AggregateId aggregateId, String requestId) {
        return findByRequestId(aggregateId, requestId).map(RequestOutcome::stored);
    }

    /**
     * Whether the streams outlive the process. {@code true} unless the store says otherwise; the in-memory store says
     * {@code false}. {@code Lanes.builder()} warns when a durable store is wired with a dead-letter queue that is not
     * durable: the commands and events parked in it would be lost at a restart that the store's streams survive.
     */
    default boolean durable() {
        return true;
    }
}
