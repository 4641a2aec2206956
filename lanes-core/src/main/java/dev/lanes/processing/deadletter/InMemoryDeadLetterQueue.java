package dev.lanes.processing.deadletter;

import dev.lanes.api.AggregateId;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.saga.ParkedReply;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * Sequences in a concurrent map; each sequence's list is replaced whole under the map's per-key lock, so a reader sees
 * a sequence before or after a change, never during. Every operation completes on the subscribing thread.
 */
final class InMemoryDeadLetterQueue implements DeadLetterQueue {
    private final ConcurrentHashMap<SequenceKey, List<DeadLetter>> sequences = new ConcurrentHashMap<>();
    private final Clock clock;

    InMemoryDeadLetterQueue(Clock clock) {
        this.clock = clock;
    }

    /** Nothing is requested from outside this process: there is nothing to take, whatever the segments. */
    @Override
    public Mono<List<DeadLetterSequence>> takeRetryRequests(Set<String> processors, Set<Segment> segments) {
        return Mono.just(List.of());
    }

    @Override
    public boolean isParked(String processor, AggregateId aggregateId) {
        return !sequences.isEmpty() && sequences.containsKey(new SequenceKey(processor, aggregateId));
    }

    @Override
    public Mono<DeadLetter> enqueue(String processor, DomainEventStream stream, String reason, int attempts) {
        return Mono.fromCallable(() -> append(processor, stream, null, reason, attempts, true));
    }

    @Override
    public Mono<DeadLetter> enqueueIfPresent(String processor, DomainEventStream stream, String reason) {
        return Mono.fromCallable(() -> append(processor, stream, null, reason, 0, false));
    }

    @Override
    public Mono<DeadLetter> enqueueReply(
            String processor, DomainEventStream cause, ParkedReply reply, String reason, int attempts) {
        return Mono.fromCallable(() -> append(processor, cause, reply, reason, attempts, true));
    }

    @Override
    public Mono<DeadLetter> enqueueReplyIfPresent(
            String processor, DomainEventStream cause, ParkedReply reply, String reason) {
        return Mono.fromCallable(() -> append(processor, cause, reply, reason, 0, false));
    }

    @Override
    public Mono<DeadLetter> enqueueCommand(String processor, CommandMessage command, String reason, int attempts) {
        return Mono.fromCallable(() -> append(processor, command, reason, attempts, true));
    }

    @Override
    public Mono<DeadLetter> enqueueCommandIfPresent(String processor, CommandMessage command, String reason) {
        return Mono.fromCallable(() -> append(processor, command, reason, 0, false));
    }

    private @Nullable DeadLetter append(
            String processor,
            DomainEventStream stream,
            @Nullable ParkedReply reply,
            String reason,
            int attempts,
            boolean create) {
        return append(
                processor,
                stream.aggregateId(),
                index -> new DeadLetter(processor, index, stream, reason, attempts, clock.instant(), reply, null),
                create);
    }

    private @Nullable DeadLetter append(
            String processor, CommandMessage command, String reason, int attempts, boolean create) {
        return append(
                processor,
                command.aggregateId(),
                index -> DeadLetter.ofCommand(processor, index, command, reason, attempts, clock.instant()),
                create);
    }

    private @Nullable DeadLetter append(
            String processor, AggregateId aggregateId, LongFunction<DeadLetter> letter, boolean create) {
        DeadLetter[] stored = new DeadLetter[1];
        sequences.compute(new SequenceKey(processor, aggregateId), (key, letters) -> {
            if (letters == null && !create) {
                return null;
            }
            List<DeadLetter> next = letters == null ? new ArrayList<>() : new ArrayList<>(letters);
            long index = next.isEmpty() ? 1 : next.get(next.size() - 1).index() + 1;
            stored[0] = letter.apply(index);
            next.add(stored[0]);
            return List.copyOf(next);
        });
        return stored[0];
    }

    @Override
    public Mono<List<DeadLetterSequence>> sequences() {
        return Mono.fromCallable(() -> sequences.entrySet().stream()
                .map(entry -> new DeadLetterSequence(
                        entry.getKey().processor(),
                        entry.getKey().aggregateId(),
                        entry.getValue().size()))
                .sorted(Comparator.comparing(DeadLetterSequence::processor)
                        .thenComparing(sequence -> sequence.aggregateId().toString()))
                .toList());
    }

    @Override
    public Mono<List<DeadLetter>> list(String processor, AggregateId aggregateId) {
        return Mono.fromCallable(() -> sequences.getOrDefault(new SequenceKey(processor, aggregateId), List.of()));
    }

    @Override
    public Mono<Void> evict(DeadLetter letter) {
        return Mono.fromRunnable(() -> sequences.computeIfPresent(key(letter), (key, letters) -> {
            List<DeadLetter> next = letters.stream()
                    .filter(parked -> parked.index() != letter.index())
                    .toList();
            return next.isEmpty() ? null : next;
        }));
    }

    @Override
    public Mono<Void> update(DeadLetter letter) {
        return Mono.fromRunnable(() -> sequences.computeIfPresent(
                key(letter),
                (key, letters) -> letters.stream()
                        .map(parked -> parked.index() == letter.index() ? letter : parked)
                        .toList()));
    }

    /** Removes the processor's sequences one key at a time: a change to a sequence is before or after, never split. */
    @Override
    public Mono<Integer> discard(String processor) {
        return Mono.fromCallable(() -> {
            int[] removed = new int[1];
            sequences.keySet().stream()
                    .filter(key -> key.processor().equals(processor))
                    .toList()
                    .forEach(key -> sequences.computeIfPresent(key, (k, letters) -> {
                        removed[0] += letters.size();
                        return null;
                    }));
            return removed[0];
        });
    }

    private static SequenceKey key(DeadLetter letter) {
        return new SequenceKey(letter.processor(), letter.aggregateId());
    }

    @Override
    public String toString() {
        int letters = sequences.values().stream().mapToInt(List::size).sum();
        return "InMemoryDeadLetterQueue[" + sequences.size() + " sequence(s), " + letters + " letter(s)]";
    }

    private record SequenceKey(String processor, AggregateId aggregateId) {}

    /** Lost with the process. */
    @Override
    public boolean durable() {
        return false;
    }
}
