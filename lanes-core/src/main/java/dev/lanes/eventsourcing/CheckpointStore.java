package dev.lanes.eventsourcing;

import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * Where tracking processors keep how far they have read the store's global order ({@link EventStore#readAll}), and
 * which instance may read for a processor name.
 *
 * <p><b>Claims.</b> One instance at a time reads for a processor name: it {@link #claim claims} the name for a lease
 * and renews the claim before the lease ends. Another instance gets the claim only once the lease has expired without
 * renewal, or the holder {@link #release released} it. A {@link #save} by an instance that no longer holds the claim
 * is refused ({@code false}), so a holder that paused past its lease learns that it lost the name instead of moving
 * the checkpoint of the instance that took over. Two instances therefore never both advance a processor's checkpoint;
 * for the short time before a paused holder notices, both may handle the same streams (delivery is at least once).
 *
 * <p><b>Segments.</b> A processor may be split into {@link Segment segments} ({@link #segments}), each with its own
 * checkpoint and claim under the rules above; the methods without a segment act on segment 0, which is the whole
 * stream of a processor of one segment. Instances that share a processor's segments say they are alive with {@link
 * #heartbeat}, which tells each how many share them. An operator pauses a segment ({@link #pause}) or asks its owner to
 * move its checkpoint ({@link #requestSeek}); the owner sees both in {@link #checkpoints} and acts ({@link #seek}).
 *
 * <p>Expected contention (a claim held by another instance, a save after the claim was lost) is a {@code false}
 * result, not an error. Every method validates its arguments and signals errors through the returned publisher; none
 * blocks the calling thread.
 */
public interface CheckpointStore {

    /**
     * Takes the claim of {@code processor} for {@code owner} until {@code lease} from now, or renews it when {@code
     * owner} holds it already; {@code true} when {@code owner} holds it afterwards. Segment 0.
     */
    default Mono<Boolean> claim(String processor, String owner, Duration lease) {
        return claim(processor, 0, owner, lease);
    }

    /** The last position saved for {@code processor}: every stream up to it was settled; 0 when none was saved. */
    default Mono<Long> load(String processor) {
        return load(processor, 0);
    }

    /**
     * Sets the checkpoint of {@code processor} (lower than before too: a reset saves 0), if {@code owner} holds its
     * claim; {@code false} (nothing saved) when it does not. Segment 0.
     */
    default Mono<Boolean> save(String processor, String owner, long position) {
        return save(processor, 0, owner, position);
    }

    /** Gives up the claim if {@code owner} holds it, so another instance may take it at once. Segment 0. */
    default Mono<Void> release(String processor, String owner) {
        return release(processor, 0, owner);
    }

    /**
     * Records that {@code processor} is split into {@code count} segments, each at checkpoint 0, unless it is recorded
     * already; completes with the count. A processor that saved checkpoints before it had segments has one.
     *
     * @throws IllegalArgumentException (as an error signal) if {@code count} is not a valid {@link Segment} count
     * @throws IllegalStateException (as an error signal) naming both counts when the processor has another one: its
     *     checkpoints cannot be split or merged
     */
    Mono<Integer> segments(String processor, int count);

    /**
     * As {@link #claim(String, String, Duration)}, for one segment.
     *
     * @throws IllegalArgumentException (as an error signal) if the processor has no such segment
     */
    Mono<Boolean> claim(String processor, int segment, String owner, Duration lease);

    /** As {@link #load(String)}, for one segment. */
    Mono<Long> load(String processor, int segment);

    /** As {@link #save(String, String, long)}, for one segment. */
    Mono<Boolean> save(String processor, int segment, String owner, long position);

    /** As {@link #release(String, String)}, for one segment. */
    Mono<Void> release(String processor, int segment, String owner);

    /**
     * Says that {@code owner} runs {@code processor} and is alive until {@code lease} from now; completes with how many
     * instances are alive for it now, this one included. Instances share the segments among that many.
     */
    Mono<Integer> heartbeat(String processor, String owner, Duration lease);

    /** Says that {@code owner} no longer runs {@code processor}: the others count it out at once. */
    Mono<Void> leave(String processor, String owner);

    /** Every segment of {@code processor} in segment order; empty when nothing was recorded for it. */
    Mono<List<SegmentCheckpoint>> checkpoints(String processor);

    /** The names of every processor with a checkpoint here, in name order. */
    Mono<List<String>> processors();

    /**
     * Pauses a segment, or resumes it: its owner, present or future, keeps the claim and reads nothing while it is
     * paused. {@code false} when the processor has no such segment.
     */
    Mono<Boolean> pause(String processor, int segment, boolean paused);

    /**
     * Asks the owner of a segment to move its checkpoint to {@code checkpoint} (0: read from the start), running the
     * processor's reset hook first; an owner that takes the claim later does it then. {@code false} when the processor
     * has no such segment. A request replaces one not yet done.
     */
    Mono<Boolean> requestSeek(String processor, int segment, long checkpoint);

    /**
     * Sets the checkpoint of a segment to {@code checkpoint} if {@code owner} holds its claim, and marks a requested
     * seek to that checkpoint done; {@code false} (nothing changed) when it does not hold the claim.
     */
    Mono<Boolean> seek(String processor, int segment, String owner, long checkpoint);

    /**
     * Whether the checkpoints outlive the process. {@code true} unless the store says otherwise; the in-memory store
     * says {@code false}. A tracking processor with a durable checkpoint store and a dead-letter queue that is not
     * durable warns at start: after a restart its checkpoint is past streams whose letters are gone.
     */
    default boolean durable() {
        return true;
    }
}
