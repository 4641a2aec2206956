package dev.lanes.processing.deadletter;

import dev.lanes.api.AggregateId;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * A dead-letter queue that forwards the operations every queue implements to another: extend it to decorate a queue
 * (count or time its operations, or make one fail, slow or watched in a test). Parking a command is forwarded too; the
 * other operations the interface defaults (fenced parking, replies, discard, claim, reload, the segmented take of
 * requested retries) keep their defaults: override them to forward them as well. Thread safety and ordering are the
 * wrapped queue's.
 */
public abstract class ForwardingDeadLetterQueue implements DeadLetterQueue {
    protected final DeadLetterQueue queue;

    protected ForwardingDeadLetterQueue(DeadLetterQueue queue) {
        this.queue = queue;
    }

    @Override
    public boolean isParked(String processor, AggregateId aggregateId) {
        return queue.isParked(processor, aggregateId);
    }

    @Override
    public Mono<DeadLetter> enqueue(String processor, DomainEventStream stream, String reason, int attempts) {
        return queue.enqueue(processor, stream, reason, attempts);
    }

    @Override
    public Mono<DeadLetter> enqueueIfPresent(String processor, DomainEventStream stream, String reason) {
        return queue.enqueueIfPresent(processor, stream, reason);
    }

    @Override
    public Mono<DeadLetter> enqueueCommand(String processor, CommandMessage command, String reason, int attempts) {
        return queue.enqueueCommand(processor, command, reason, attempts);
    }

    @Override
    public Mono<DeadLetter> enqueueCommandIfPresent(String processor, CommandMessage command, String reason) {
        return queue.enqueueCommandIfPresent(processor, command, reason);
    }

    @Override
    public Mono<List<DeadLetterSequence>> sequences() {
        return queue.sequences();
    }

    @Override
    public Mono<List<DeadLetter>> list(String processor, AggregateId aggregateId) {
        return queue.list(processor, aggregateId);
    }

    @Override
    public Mono<Void> evict(DeadLetter letter) {
        return queue.evict(letter);
    }

    @Override
    public Mono<Void> update(DeadLetter letter) {
        return queue.update(letter);
    }

    @Override
    public Mono<List<DeadLetterSequence>> takeRetryRequests(Set<String> processors) {
        return queue.takeRetryRequests(processors);
    }
}
