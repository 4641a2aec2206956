package dev.lanes.processing.deadletter;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Internal;
import dev.lanes.processing.ProcessorDispatcher;
import dev.lanes.processing.tracking.TrackingProcessor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * The {@link DeadLetters} of processors that share one queue: reads from the queue, and sends each retry or skip to the
 * lanes of the processor it names (a bus-fed {@link ProcessorDispatcher}, a {@link TrackingProcessor}, or the {@link
 * DeadLetters} of another event side, for {@link DeadLetters#combine}).
 */
@Internal
public final class LaneDeadLetters implements DeadLetters {

    /** Runs a retry or skip of one sequence in the aggregate's lane of one processor. */
    @FunctionalInterface
    public interface Lanes {
        Mono<RetryOutcome> operate(AggregateId aggregateId, SequenceOperation.Kind kind);
    }

    private final String owner;
    private final DeadLetterQueue queue;
    private final Map<String, Lanes> processors;

    /** @param processors by processor name, in the order {@link #processors()} lists them */
    public LaneDeadLetters(String owner, DeadLetterQueue queue, Map<String, Lanes> processors) {
        this.owner = owner;
        this.queue = queue;
        this.processors = new LinkedHashMap<>(processors);
    }

    /** The dead letters of several parts over {@code queue}; each processor name must belong to one part only. */
    static LaneDeadLetters combined(String owner, DeadLetterQueue queue, List<DeadLetters> parts) {
        Map<String, Lanes> processors = new LinkedHashMap<>();
        for (DeadLetters part : parts) {
            for (String processor : part.processors()) {
                Lanes lanes = (aggregateId, kind) -> kind == SequenceOperation.Kind.RETRY
                        ? part.retry(processor, aggregateId)
                        : part.skip(processor, aggregateId);
                if (processors.putIfAbsent(processor, lanes) != null) {
                    throw new IllegalArgumentException(owner + " has two processors named '" + processor
                            + "': their sequences in " + queue + " would be one; give each a name of its own");
                }
            }
        }
        return new LaneDeadLetters(owner, queue, processors);
    }

    @Override
    public Set<String> processors() {
        return Set.copyOf(processors.keySet());
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
            Lanes lanes = processors.get(Objects.requireNonNull(processor, "processor"));
            if (lanes == null) {
                return Mono.error(new IllegalArgumentException(
                        owner + " has no processor '" + processor + "' (it has " + processors.keySet() + ")"));
            }
            return lanes.operate(aggregateId, kind);
        });
    }

    @Override
    public String toString() {
        return "DeadLetters[" + owner + ", " + queue + "]";
    }
}
