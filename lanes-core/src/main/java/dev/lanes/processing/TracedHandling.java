package dev.lanes.processing;

import dev.lanes.internal.Immediate;
import dev.lanes.internal.Internal;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.tracing.MessageTrace;
import dev.lanes.tracing.MessageTracing;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;

/**
 * Runs a processor's handling of a message within a {@link MessageTracing#handling} trace: a stream's functions get it
 * with the trace's headers (so a saga's commands continue the trace), and the trace ends once with the outcome. Replies
 * are not traced (their command's trace covers them). With {@link MessageTracing#NONE}, the processor's handling as it
 * is.
 */
@Internal
public final class TracedHandling {
    private TracedHandling() {}

    /** As {@link EventProcessor#handleMessage}: the functions run when this is called. */
    public static Mono<Void> handle(MessageTracing tracing, EventProcessor processor, Object message) {
        if (tracing == MessageTracing.NONE || !(message instanceof DomainEventStream stream)) {
            return processor.handleMessage(message);
        }
        MessageTrace trace =
                tracing.handling(processor.name(), processor.kind().name().toLowerCase(Locale.ROOT), stream);
        Mono<Void> handling;
        try {
            handling = processor.handleMessage(carrying(stream, trace));
        } catch (Throwable failed) {
            Exceptions.throwIfJvmFatal(failed);
            trace.end(failed);
            return Mono.error(failed);
        }
        return Immediate.then(
                handling,
                failed -> {
                    trace.end(failed);
                    return failed == null ? Mono.empty() : Mono.error(failed);
                },
                () -> trace.end(new CancellationException("the lane cancelled " + stream)));
    }

    private static DomainEventStream carrying(DomainEventStream stream, MessageTrace trace) {
        return new DomainEventStream(
                stream.id(),
                stream.aggregateId(),
                stream.version(),
                stream.requestId(),
                stream.commandId(),
                stream.events(),
                stream.createdAt(),
                trace.headers(stream.headers()));
    }
}
