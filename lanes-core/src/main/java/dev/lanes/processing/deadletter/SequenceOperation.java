package dev.lanes.processing.deadletter;

import dev.lanes.api.AggregateId;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.internal.Internal;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A retry or skip of one parked sequence, sent through the aggregate's lane of its processor so that it is ordered with
 * the aggregate's streams. Its result is answered by the lane's handler; a rejection (the lane stopped first) fails it.
 */
@Internal
public final class SequenceOperation implements MessageExchange<Object> {

    public enum Kind {
        RETRY,
        SKIP
    }

    private final String processor;
    private final AggregateId aggregateId;
    private final Kind kind;
    private final Sinks.One<RetryOutcome> result = Sinks.one();

    public SequenceOperation(String processor, AggregateId aggregateId, Kind kind) {
        this.processor = processor;
        this.aggregateId = aggregateId;
        this.kind = kind;
    }

    boolean skipsHead() {
        return kind == Kind.SKIP;
    }

    /** The outcome, once the lane ran it; an error if it failed or never ran. */
    public Mono<RetryOutcome> result() {
        return result.asMono();
    }

    void answer(RetryOutcome outcome) {
        result.tryEmitValue(outcome);
    }

    void fail(Throwable error) {
        result.tryEmitError(error);
    }

    @Override
    public Object message() {
        return this;
    }

    @Override
    public AggregateId aggregateId() {
        return aggregateId;
    }

    /** Nothing to tell: the handler answered the caller already. */
    @Override
    public void acknowledge() {}

    @Override
    public void reject(Throwable reason) {
        fail(new IllegalStateException(this + " did not run: " + reason.getMessage(), reason));
    }

    @Override
    public String toString() {
        return "SequenceOperation[" + kind + " " + processor + " " + aggregateId + "]";
    }
}
