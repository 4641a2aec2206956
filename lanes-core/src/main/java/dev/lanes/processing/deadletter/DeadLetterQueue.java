package dev.lanes.processing.deadletter;

import dev.lanes.api.AggregateId;
import dev.lanes.event.OwnershipFence;
import dev.lanes.event.OwnershipLostException;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.saga.ParkedReply;
import dev.lanes.processing.tracking.TrackingProcessor;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A sequenced dead-letter queue: the event streams each processor could not handle, and the replies each saga could
 * not handle (in the sequence of the aggregate whose event caused the command), in sequences keyed by processor and
 * aggregate. While a sequence exists, the processor parks that aggregate's later streams behind it instead of handling
 * them out of order, until its head is delivered or skipped (see {@link DeadLetters}).
 *
 * <p><b>Threads.</b> {@link #isParked} is called in the lane for every stream: it must answer from memory, without
 * blocking or allocating much. The other operations return a {@code Mono} that does its work when subscribed and must
 * not block the subscribing thread (a lane's worker): a durable queue runs its I/O on a scheduler of its own.
 *
 * <p><b>Ordering.</b> The event side calls the mutating operations of one sequence from that aggregate's lane only, one
 * after the other, so an implementation needs no ordering of its own within a sequence; it must assign increasing
 * indexes, and keep operations on different sequences independent.
 *
 * <p>Implementations: {@link DeadLetterQueues#inMemory()}; {@code PostgresDeadLetterQueue} in {@code lanes-postgres}.
 */
public interface DeadLetterQueue {

    /** Whether a sequence is parked for this processor and aggregate. From memory; any thread. */
    boolean isParked(String processor, AggregateId aggregateId);

    /**
     * Parks {@code stream} at the end of its aggregate's sequence, creating the sequence if there is none. Completes with
     * the stored letter once it is stored: only then may the stream be acknowledged to its source.
     *
     * @param attempts how many times the processor ran it
     */
    Mono<DeadLetter> enqueue(String processor, DomainEventStream stream, String reason, int attempts);

    /**
     * Parks {@code stream} at the end of its aggregate's sequence if that sequence exists; completes empty, storing
     * nothing, if it does not (then the processor handles the stream).
     */
    Mono<DeadLetter> enqueueIfPresent(String processor, DomainEventStream stream, String reason);

    /**
     * As {@link #enqueue(String, DomainEventStream, String, int)}, for a stream from a partition this instance was
     * assigned with {@code fence}: a queue shared by instances stores it only while {@code fence} is still the
     * partition's epoch, checked in the same transaction as the write, and otherwise fails with {@link
     * OwnershipLostException}, storing nothing. The event side passes the fence of the stream's exchange ({@link
     * OwnershipFence#of}); {@link OwnershipFence#NONE} is not checked. By default the fence is not checked (a queue
     * that is not shared).
     */
    default Mono<DeadLetter> enqueue(
            String processor, DomainEventStream stream, String reason, int attempts, OwnershipFence fence) {
        return enqueue(processor, stream, reason, attempts);
    }

    /**
     * As {@link #enqueueIfPresent(String, DomainEventStream, String)}, fenced as {@link #enqueue(String,
     * DomainEventStream, String, int, OwnershipFence)}: a stale fence fails with {@link OwnershipLostException} whether
     * or not the sequence exists.
     */
    default Mono<DeadLetter> enqueueIfPresent(
            String processor, DomainEventStream stream, String reason, OwnershipFence fence) {
        return enqueueIfPresent(processor, stream, reason);
    }

    /**
     * Parks a saga's {@code reply}, caused by an event of {@code cause}, at the end of the sequence of {@code cause}'s
     * aggregate for the saga {@code processor}, creating the sequence if there is none; as {@link #enqueue(String,
     * DomainEventStream, String, int)}, the letter's {@link DeadLetter#stream()} being {@code cause} and its {@link
     * DeadLetter#reply()} being {@code reply}. The queue stores the reply's command as it stores an event payload. The
     * default refuses with {@link UnsupportedOperationException}: the saga then hands the reply to its lane's parking
     * lot, in memory.
     */
    default Mono<DeadLetter> enqueueReply(
            String processor, DomainEventStream cause, ParkedReply reply, String reason, int attempts) {
        return Mono.error(new UnsupportedOperationException(
                this + " cannot park saga replies (" + processor + ", " + reply + ")"));
    }

    /**
     * As {@link #enqueueReply}, only if the sequence exists (as {@link #enqueueIfPresent(String, DomainEventStream,
     * String)}): completes empty, storing nothing, if it does not. The default refuses as {@link #enqueueReply} does.
     */
    default Mono<DeadLetter> enqueueReplyIfPresent(
            String processor, DomainEventStream cause, ParkedReply reply, String reason) {
        return enqueueReply(processor, cause, reply, reason, 0);
    }

    /**
     * Parks a {@code command} whose retries ran out at the end of its aggregate's sequence for {@code processor} (the
     * command side's name for the aggregate type, see {@link CommandDeadLetters}), creating the sequence if there is
     * none; as {@link #enqueue(String, DomainEventStream, String, int)}, the letter's {@link DeadLetter#command()} being
     * {@code command} (stored as an event payload is, with its request id, message id, headers and time). The default
     * refuses with {@link UnsupportedOperationException}: the command side then keeps the command in its lane's parking
     * lot, in memory.
     */
    default Mono<DeadLetter> enqueueCommand(String processor, CommandMessage command, String reason, int attempts) {
        return Mono.error(
                new UnsupportedOperationException(this + " cannot park commands (" + processor + ", " + command + ")"));
    }

    /**
     * As {@link #enqueueCommand}, only if the sequence exists (as {@link #enqueueIfPresent(String, DomainEventStream,
     * String)}): completes empty, storing nothing, if it does not. The default refuses as {@link #enqueueCommand} does.
     */
    default Mono<DeadLetter> enqueueCommandIfPresent(String processor, CommandMessage command, String reason) {
        return enqueueCommand(processor, command, reason, 0);
    }

    /**
     * Takes the next ownership epoch of a partition for {@code owner}, as an {@link dev.lanes.event.OwnershipClaims}
     * that the event side registers with its bus for each processor ({@code group} is the processor's consumer group on
     * the bus); the fenced {@code enqueue} operations refuse the epochs taken before it from then on. Blocking: on the
     * bus's consumer thread, before {@link #reload()}. A queue that is not shared with other processes returns {@link
     * OwnershipFence#NONE} (the default).
     *
     * @throws RuntimeException the queue's usual failure when it cannot write to its store
     */
    default OwnershipFence claim(String owner, String group, String topic, int partition) {
        return OwnershipFence.NONE;
    }

    /** Every sequence, ordered by processor, then aggregate. */
    Mono<List<DeadLetterSequence>> sequences();

    /** The letters of one sequence, head first; empty when nothing is parked. */
    Mono<List<DeadLetter>> list(String processor, AggregateId aggregateId);

    /** Removes one letter (delivered or skipped); the sequence ends with its last letter. */
    Mono<Void> evict(DeadLetter letter);

    /** Replaces a letter's reason, attempts and time after it failed again; it keeps its place. */
    Mono<Void> update(DeadLetter letter);

    /**
     * Removes every sequence of {@code processor}, without delivering any letter: its read model is being rebuilt from
     * the start ({@link TrackingProcessor#reset()}), and the rebuild parks what still fails again. Completes with how
     * many letters were removed; afterwards {@link #isParked} answers {@code false} for the processor's aggregates.
     *
     * <p>Not ordered with the lanes: call it only while no lane of that processor parks or retries (a tracking
     * processor's reset does so once every stream it read is settled and no retry runs). The default lists the
     * processor's sequences and evicts their letters one by one; a queue with a store of its own removes them at once.
     */
    default Mono<Integer> discard(String processor) {
        return sequences()
                .flatMapIterable(sequences -> sequences)
                .filter(sequence -> sequence.processor().equals(processor))
                .concatMap(sequence -> list(processor, sequence.aggregateId()))
                .concatMap(letters -> Flux.fromIterable(letters)
                        .concatMap(letter -> evict(letter).thenReturn(1)))
                .reduce(0, Integer::sum);
    }

    /**
     * Takes the retries requested from outside the process (for example {@code lanes parked retry}) for these
     * processors, each once: the event side that runs them polls for them. Empty unless the queue is shared with other
     * processes.
     */
    default Mono<List<DeadLetterSequence>> takeRetryRequests(Set<String> processors) {
        return Mono.just(List.of());
    }

    /**
     * Takes the retries requested from outside for these processors, as {@link #takeRetryRequests(Set)} does, but only
     * those whose aggregate falls in one of {@code segments} (all of one {@link Segment#count() count}); the others stay
     * for the instance that reads their segment, so that a requested retry runs in the lane of the aggregate's owner,
     * ordered with the streams it reads. A tracking processor split into segments polls with the segments it holds;
     * with none, nothing is taken.
     *
     * <p>The default serves one segment ({@code count} 1, the whole stream) through {@link #takeRetryRequests(Set)},
     * and fails for more: a queue shared between processes must filter by segment where it keeps the requests.
     *
     * @throws IllegalArgumentException (as the Mono's error) when the segments are of different counts
     */
    default Mono<List<DeadLetterSequence>> takeRetryRequests(Set<String> processors, Set<Segment> segments) {
        return Mono.defer(() -> {
            if (segments.isEmpty()) {
                return Mono.just(List.of());
            }
            if (Segment.commonCount(segments) == 1) {
                return takeRetryRequests(processors);
            }
            return Mono.error(new UnsupportedOperationException(getClass().getName()
                    + " cannot take the retries requested for segments " + segments + " of processors " + processors
                    + ": a queue shared between processes must override takeRetryRequests(Set, Set)"));
        });
    }

    /**
     * Reads the parked sequences again from where the queue keeps them, so that {@link #isParked} also answers for the
     * sequences other processes parked since this queue loaded them. It may keep answering for a sequence that is gone
     * from there: {@link #enqueueIfPresent} then completes empty, and the processor handles the stream.
     *
     * <p>Blocking. An event bus runs it on its consumer thread when it takes over work that another instance may have
     * parked sequences for, before it hands any of that work out ({@link
     * dev.lanes.event.DomainEventBus#onAssignment}); never call it from a lane. A queue that is not shared with other
     * processes (the in-memory one) has nothing to read and does nothing.
     *
     * @throws RuntimeException the queue's usual failure when it cannot read its store
     */
    default void reload() {}

    /**
     * Whether the parked letters outlive the process. {@code true} unless the queue says otherwise; the in-memory queue
     * says {@code false} (see {@link dev.lanes.eventsourcing.CheckpointStore#durable()} for what checks it).
     */
    default boolean durable() {
        return true;
    }
}
