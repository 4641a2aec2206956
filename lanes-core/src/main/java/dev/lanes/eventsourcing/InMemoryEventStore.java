package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.internal.Require;
import dev.lanes.messaging.DomainEventStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Keeps every aggregate's streams in memory. One monitor per aggregate makes an append atomic against concurrent
 * appends to the same aggregate; appends to different aggregates share no lock.
 *
 * <p><b>Global order.</b> An append claims its position (an atomic counter) and writes its stream into that position's
 * slot while it holds its aggregate's monitor, so an aggregate's positions follow its versions. {@link #readAll} reads
 * up to the visible position, below which every slot is written: each append, after writing its slot, moves the
 * visible position over every written slot that follows it, and waits until it covers its own before it completes.
 * So a position is readable exactly when every lower one is ({@code readAll} never has a gap to wait for), and an
 * append that completed is readable. The one wait is for an append that claimed a lower position and has not
 * written its slot yet, a few instructions.
 */
final class InMemoryEventStore implements EventStore {
    private final ConcurrentHashMap<AggregateId, Log> logs = new ConcurrentHashMap<>();
    private final Positions all = new Positions();

    /**
     * One aggregate's streams, in version order (index = version - 1), the stream of each request id, and the refusal
     * of each request id whose command it refused.
     */
    private static final class Log {
        final List<DomainEventStream> streams = new ArrayList<>();
        final Map<String, DomainEventStream> byRequestId = new HashMap<>();
        final Map<String, CommandRefusal> refusals = new HashMap<>(0);
    }

    @Override
    public Mono<Void> append(DomainEventStream stream) {
        return Mono.fromRunnable(() -> appendNow(Objects.requireNonNull(stream, "stream")));
    }

    private void appendNow(DomainEventStream stream) {
        Log log = logs.computeIfAbsent(stream.aggregateId(), id -> new Log());
        long position;
        synchronized (log) {
            int stored = log.streams.size();
            if (stream.version() <= stored) {
                throw stream.version() == 1
                        ? DuplicateAggregateIdException.of(stream.aggregateId())
                        : EventVersionConflictException.taken(stream.aggregateId(), stream.version(), stored);
            }
            if (stream.version() != stored + 1) {
                throw new IllegalArgumentException("Appending version " + stream.version() + " to "
                        + stream.aggregateId() + " would leave a gap: the stored version is " + stored);
            }
            if (log.refusals.containsKey(stream.requestId())) {
                throw DuplicateRequestIdException.refusedEarlier(stream.aggregateId(), stream.requestId());
            }
            if (log.byRequestId.putIfAbsent(stream.requestId(), stream) != null) {
                throw DuplicateRequestIdException.of(stream.aggregateId(), stream.requestId());
            }
            log.streams.add(stream);
            position = all.claim(stream);
        }
        all.awaitVisible(position);
    }

    @Override
    public Flux<PositionedStream> readAll(long fromPosition, int limit) {
        return Flux.defer(() -> {
            if (fromPosition < 0) {
                throw new IllegalArgumentException("fromPosition must not be negative: " + fromPosition);
            }
            Require.positive(limit, "limit");
            long visible = all.visible();
            long from = Math.max(fromPosition, 1);
            long to = Math.min(from - 1 + limit, visible);
            List<PositionedStream> page = new ArrayList<>((int) Math.max(to - from + 1, 0));
            for (long position = from; position <= to; position++) {
                page.add(new PositionedStream(position, all.get(position)));
            }
            return Flux.fromIterable(page);
        });
    }

    @Override
    public Flux<DomainEventStream> load(AggregateId aggregateId, int fromVersion, int toVersion) {
        return Flux.defer(() -> {
            Objects.requireNonNull(aggregateId, "aggregateId");
            Require.positive(fromVersion, "fromVersion");
            if (toVersion < fromVersion) {
                throw new IllegalArgumentException(
                        "toVersion must not be below fromVersion: " + toVersion + " < " + fromVersion);
            }
            Log log = logs.get(aggregateId);
            if (log == null) {
                return Flux.empty();
            }
            synchronized (log) {
                int to = Math.min(toVersion, log.streams.size());
                return fromVersion > to
                        ? Flux.empty()
                        : Flux.fromIterable(List.copyOf(log.streams.subList(fromVersion - 1, to)));
            }
        });
    }

    @Override
    public Flux<PositionedStream> readAll(long fromPosition, int limit, Set<MaterializedNamedAggregate> types) {
        return readAll(fromPosition, limit, types, Segment.ALL);
    }

    @Override
    public Flux<PositionedStream> readAll(
            long fromPosition, int limit, Set<MaterializedNamedAggregate> types, Segment segment) {
        return Flux.defer(() -> {
            if (fromPosition < 0) {
                throw new IllegalArgumentException("fromPosition must not be negative: " + fromPosition);
            }
            Require.positive(limit, "limit");
            if (types.isEmpty()) {
                throw new IllegalArgumentException("types must not be empty");
            }
            List<PositionedStream> page = new ArrayList<>();
            long visible = all.visible();
            for (long position = Math.max(fromPosition, 1); position <= visible && page.size() < limit; position++) {
                DomainEventStream stream = all.get(position);
                if (types.contains(stream.aggregateId().materialize()) && segment.contains(stream.aggregateId())) {
                    page.add(new PositionedStream(position, stream));
                }
            }
            return Flux.fromIterable(page);
        });
    }

    @Override
    public Mono<Boolean> hasRequestId(AggregateId aggregateId, String requestId) {
        return findByRequestId(aggregateId, requestId).hasElement();
    }

    @Override
    public Mono<DomainEventStream> findByRequestId(AggregateId aggregateId, String requestId) {
        return findRequest(aggregateId, requestId).mapNotNull(RequestOutcome::stream);
    }

    @Override
    public Mono<Void> recordRefusal(CommandRefusal refusal) {
        return Mono.fromRunnable(() -> {
            Log log = logs.computeIfAbsent(
                    Objects.requireNonNull(refusal, "refusal").aggregateId(), id -> new Log());
            synchronized (log) {
                log.refusals.putIfAbsent(refusal.requestId(), refusal);
            }
        });
    }

    /** Answers at once (a {@code Callable} Mono): the gateway takes it without operators. */
    @Override
    public Mono<RequestOutcome> findRequest(AggregateId aggregateId, String requestId) {
        return Mono.fromCallable(() -> {
            Log log = logs.get(Objects.requireNonNull(aggregateId, "aggregateId"));
            Require.notBlank(requestId, "requestId");
            if (log == null) {
                return null;
            }
            synchronized (log) {
                DomainEventStream stored = log.byRequestId.get(requestId);
                if (stored != null) {
                    return RequestOutcome.stored(stored);
                }
                CommandRefusal refusal = log.refusals.get(requestId);
                return refusal == null ? null : RequestOutcome.refused(refusal);
            }
        });
    }

    /** Lost with the process. */
    @Override
    public boolean durable() {
        return false;
    }

    @Override
    public String toString() {
        return "InMemoryEventStore[" + logs.size() + " aggregate(s)]";
    }
}
