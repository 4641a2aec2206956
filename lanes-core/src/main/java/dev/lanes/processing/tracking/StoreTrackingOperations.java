package dev.lanes.processing.tracking;

import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.SegmentCheckpoint;
import dev.lanes.eventsourcing.SegmentLag;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterSequence;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** {@link TrackingOperations} as writes to and reads of the checkpoint store, the event store and the queue. */
final class StoreTrackingOperations implements TrackingOperations {
    private final CheckpointStore checkpoints;
    private final EventStore store;
    private final DeadLetterQueue deadLetters;
    private final Clock clock;

    StoreTrackingOperations(CheckpointStore checkpoints, EventStore store, DeadLetterQueue deadLetters, Clock clock) {
        this.checkpoints = checkpoints;
        this.store = store;
        this.deadLetters = deadLetters;
        this.clock = clock;
    }

    @Override
    public Mono<List<String>> processors() {
        return checkpoints.processors();
    }

    @Override
    public Mono<List<SegmentStatus>> status(String processor) {
        return rows(processor)
                .flatMap(rows -> deadLetters
                        .sequences()
                        .flatMap(sequences -> Flux.fromIterable(rows)
                                .concatMap(row -> store.lag(row.segment(), row.position())
                                        .map(lag -> status(row, lag, (int) sequences.stream()
                                                .filter(sequence ->
                                                        sequence.processor().equals(processor)
                                                                && row.segment().contains(sequence.aggregateId()))
                                                .mapToLong(DeadLetterSequence::size)
                                                .sum())))
                                .collectList()));
    }

    private SegmentStatus status(SegmentCheckpoint row, SegmentLag lag, int parked) {
        Instant now = clock.instant();
        boolean claimed = row.claimedAt(now);
        SegmentStatus.State state = row.requestedCheckpoint() != null
                ? SegmentStatus.State.SEEKING
                : row.paused()
                        ? SegmentStatus.State.PAUSED
                        : !claimed
                                ? SegmentStatus.State.UNCLAIMED
                                : lag.streams() > 0 ? SegmentStatus.State.CATCHING_UP : SegmentStatus.State.RUNNING;
        Instant oldest = lag.oldest();
        Duration lagTime = oldest == null || oldest.isAfter(now) ? Duration.ZERO : Duration.between(oldest, now);
        return new SegmentStatus(
                row.processor(),
                row.segment(),
                claimed ? row.owner() : null,
                row.position(),
                lag.head(),
                lag.streams(),
                lagTime,
                state,
                parked);
    }

    @Override
    public Mono<List<Integer>> pause(String processor, @Nullable Integer segment) {
        return each(processor, segment, index -> checkpoints.pause(processor, index, true));
    }

    @Override
    public Mono<List<Integer>> resume(String processor, @Nullable Integer segment) {
        return each(processor, segment, index -> checkpoints.pause(processor, index, false));
    }

    @Override
    public Mono<List<Integer>> reset(String processor, @Nullable Integer segment) {
        return each(processor, segment, index -> checkpoints.requestSeek(processor, index, 0));
    }

    @Override
    public Mono<List<Integer>> seek(String processor, @Nullable Integer segment, long position) {
        if (position < 1) {
            return Mono.error(new IllegalArgumentException(
                    "position must be at least 1 (the first position of a store): " + position));
        }
        return each(processor, segment, index -> checkpoints.requestSeek(processor, index, position - 1));
    }

    private Mono<List<Integer>> each(
            String processor, @Nullable Integer segment, Function<Integer, Mono<Boolean>> action) {
        return rows(processor).flatMap(rows -> {
            int count = rows.get(0).segment().count();
            if (segment != null && (segment < 0 || segment >= count)) {
                return Mono.error(new IllegalArgumentException(
                        "Processor " + processor + " has no segment " + segment + " (it has " + count + ")"));
            }
            List<Integer> chosen = rows.stream()
                    .map(row -> row.segment().index())
                    .filter(index -> segment == null || index.equals(segment))
                    .toList();
            return Flux.fromIterable(chosen)
                    .concatMap(index ->
                            action.apply(index).filter(Boolean::booleanValue).map(done -> index))
                    .collectList();
        });
    }

    private Mono<List<SegmentCheckpoint>> rows(String processor) {
        return checkpoints
                .checkpoints(processor)
                .flatMap(rows -> rows.isEmpty()
                        ? checkpoints
                                .processors()
                                .flatMap(known -> Mono.error(
                                        new IllegalArgumentException("No tracking processor named " + processor
                                                + " has checkpoints in " + checkpoints + " (known: " + known + ")")))
                        : Mono.just(rows));
    }
}
