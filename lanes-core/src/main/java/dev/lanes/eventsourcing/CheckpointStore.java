package dev.lanes.eventsourcing;

import java.time.Duration;
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
 * <p>Expected contention (a claim held by another instance, a save after the claim was lost) is a {@code false}
 * result, not an error. Every method validates its arguments and signals errors through the returned publisher; none
 * blocks the calling thread.
 */
public interface CheckpointStore {

    /**
     * Takes the claim of {@code processor} for {@code owner} until {@code lease} from now, or renews it when {@code
     * owner} holds it already; {@code true} when {@code owner} holds it afterwards.
     */
    Mono<Boolean> claim(String processor, String owner, Duration lease);

    /** The last position saved for {@code processor}: every stream up to it was settled; 0 when none was saved. */
    Mono<Long> load(String processor);

    /**
     * Sets the checkpoint of {@code processor} (lower than before too: a reset saves 0), if {@code owner} holds its
     * claim; {@code false} (nothing saved) when it does not.
     */
    Mono<Boolean> save(String processor, String owner, long position);

    /** Gives up the claim if {@code owner} holds it, so another instance may take it at once. */
    Mono<Void> release(String processor, String owner);

    /**
     * Whether the checkpoints outlive the process. {@code true} unless the store says otherwise; the in-memory store
     * says {@code false}. A tracking processor with a durable checkpoint store and a dead-letter queue that is not
     * durable warns at start: after a restart its checkpoint is past streams whose letters are gone.
     */
    default boolean durable() {
        return true;
    }
}
