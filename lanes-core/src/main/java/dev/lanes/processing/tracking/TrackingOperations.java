package dev.lanes.processing.tracking;

import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * What an operator does with tracking processors, from any process that reaches their checkpoint store (the CLI's
 * {@code lanes processors}, the Spring Boot starter's Actuator endpoint, a running instance): list every segment with
 * its owner, checkpoint, head and lag, pause and resume segments, and reset or seek them.
 *
 * <p>Nothing here runs a processor. Pauses and seeks are written to the {@link CheckpointStore}; the instance that owns
 * a segment sees them at its next tick (every poll interval) and acts: a paused segment keeps its claim and reads
 * nothing; a reset or seek runs the processor's reset hook, discards the segment's dead letters and reads on after the
 * new checkpoint. A segment nobody owns is acted on by the instance that claims it next. A {@code segment} of null means
 * every segment of the processor. Every method errors with {@link IllegalArgumentException} naming the processor when
 * the store has no checkpoint of it, or naming the segment and the count when it has no such segment.
 */
public interface TrackingOperations {

    /** Over these stores; {@code deadLetters} counts the parked streams ({@link DeadLetterQueues#inMemory()}: none). */
    static TrackingOperations of(CheckpointStore checkpoints, EventStore store, DeadLetterQueue deadLetters) {
        return new StoreTrackingOperations(
                Objects.requireNonNull(checkpoints, "checkpoints"),
                Objects.requireNonNull(store, "store"),
                Objects.requireNonNull(deadLetters, "deadLetters"),
                Clock.systemUTC());
    }

    /** The names of the processors with checkpoints in the store. */
    Mono<List<String>> processors();

    /** Every segment of {@code processor}, in segment order. */
    Mono<List<SegmentStatus>> status(String processor);

    /** Pauses the segment (or every segment); completes with the segments paused. */
    Mono<List<Integer>> pause(String processor, @Nullable Integer segment);

    /** Resumes the segment (or every segment); completes with the segments resumed. */
    Mono<List<Integer>> resume(String processor, @Nullable Integer segment);

    /** Asks for a reset of the segment (or every segment) to the start; completes with the segments asked. */
    Mono<List<Integer>> reset(String processor, @Nullable Integer segment);

    /**
     * Asks for a seek of the segment (or every segment): its streams from {@code position} on are read again (its
     * checkpoint becomes {@code position - 1}); completes with the segments asked.
     */
    Mono<List<Integer>> seek(String processor, @Nullable Integer segment, long position);
}
