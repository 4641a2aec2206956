package dev.lanes.processing.saga;

import dev.lanes.api.AggregateId;
import dev.lanes.internal.Internal;
import dev.lanes.messaging.EventContext;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a saga function gets: the event that triggered it, and {@link #send} to record commands.
 *
 * <p>Recording is all a saga does in its lane: the commands are sent after the function succeeded, outside the lane,
 * and the saga's lane never waits for them (a command's lane may be waiting for this saga's intake to move). Their
 * outcomes come back as {@link SagaReply replies} through the saga's lane of the same aggregate.
 *
 * <p>Request ids derive from the trigger, so a redelivered or retried event never duplicates a command: the n-th send
 * of a handling gets {@code saga:<processor>:<eventKey>:<n>} for an event, and {@code <reply's request id>:<n>} for a
 * reply. Keep the order of sends deterministic.
 */
public final class SagaContext {
    private final EventContext event;
    private final String processor;
    private final String requestBase;
    private final SagaBatch batch;
    private final AtomicInteger sends = new AtomicInteger();

    @Internal
    public SagaContext(EventContext event, String processor, String requestBase, SagaBatch batch) {
        this.event = event;
        this.processor = processor;
        this.requestBase = requestBase;
        this.batch = batch;
    }

    /** The triggering event; for a reply, the event whose handling sent the command. */
    public EventContext event() {
        return event;
    }

    /**
     * Records {@code command} for {@code target}: it is sent once this function's {@code Mono} succeeded (not if it
     * fails: the retry records it again, with the same request id). Call it before that {@code Mono} completes.
     *
     * @return the recorded command with its request id
     * @throws IllegalStateException if called after the function completed
     */
    public SagaCommand send(AggregateId target, Object command) {
        SagaCommand recorded = new SagaCommand(
                Objects.requireNonNull(target, "target"),
                Objects.requireNonNull(command, "command"),
                requestBase + ":" + sends.incrementAndGet());
        batch.add(new SagaOutbox.Intent(recorded, event, processor));
        return recorded;
    }
}
