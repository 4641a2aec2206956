package dev.lanes.processing;

import dev.lanes.api.AggregateId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import reactor.core.publisher.Mono;

/** The {@link DeadLetters} of one event side: reads from its queue, retries and skips through its processors' lanes. */
final class LaneDeadLetters implements DeadLetters {
    private final String owner;
    private final DeadLetterQueue queue;
    private final Map<String, ProcessorDispatcher> processors = new LinkedHashMap<>();

    LaneDeadLetters(String owner, DeadLetterQueue queue, List<ProcessorDispatcher> processors) {
        this.owner = owner;
        this.queue = queue;
        processors.forEach(child -> this.processors.put(child.name(), child));
    }

    @Override
    public Mono<List<DeadLetterSequence>> sequences() {
        return queue.sequences();
    }

    @Override
    public Mono<List<DeadLetter>> list(String processor, AggregateId aggregateId) {
        return Mono.defer(() -> queue.list(
                Objects.requireNonNull(processor, "processor"), Objects.requireNonNull(aggregateId, "aggregateId")));
    }

    @Override
    public Mono<RetryOutcome> retry(String processor, AggregateId aggregateId) {
        return operate(processor, aggregateId, SequenceOperation.Kind.RETRY);
    }

    @Override
    public Mono<RetryOutcome> skip(String processor, AggregateId aggregateId) {
        return operate(processor, aggregateId, SequenceOperation.Kind.SKIP);
    }

    private Mono<RetryOutcome> operate(String processor, AggregateId aggregateId, SequenceOperation.Kind kind) {
        return Mono.defer(() -> {
            Objects.requireNonNull(aggregateId, "aggregateId");
            ProcessorDispatcher child = processors.get(Objects.requireNonNull(processor, "processor"));
            if (child == null) {
                return Mono.error(new IllegalArgumentException(
                        owner + " has no processor '" + processor + "' (it has " + processors.keySet() + ")"));
            }
            return child.operate(aggregateId, kind);
        });
    }

    @Override
    public String toString() {
        return "DeadLetters[" + owner + ", " + queue + "]";
    }
}
