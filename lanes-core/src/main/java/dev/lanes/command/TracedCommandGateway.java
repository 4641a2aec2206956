package dev.lanes.command;

import dev.lanes.internal.Internal;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.tracing.MessageTrace;
import dev.lanes.tracing.MessageTracing;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import reactor.core.publisher.Mono;

/**
 * Traces each send of its delegate: the trace starts at subscription, on the subscribing thread, and ends once with the
 * send's outcome (its result, its error, or a cancellation).
 */
@Internal
public final class TracedCommandGateway implements CommandGateway {
    private final CommandGateway delegate;
    private final MessageTracing tracing;

    TracedCommandGateway(CommandGateway delegate, MessageTracing tracing) {
        this.delegate = delegate;
        this.tracing = tracing;
    }

    @Override
    public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage) {
        return Mono.deferContextual(context -> {
            MessageTrace trace = tracing.send(command, context);
            try {
                return traced(trace, delegate.send(carrying(command, trace), waitStage));
            } catch (RuntimeException refused) {
                trace.end(refused);
                throw refused;
            }
        });
    }

    @Override
    public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage, Duration timeout) {
        return Mono.deferContextual(context -> {
            MessageTrace trace = tracing.send(command, context);
            try {
                return traced(trace, delegate.send(carrying(command, trace), waitStage, timeout));
            } catch (RuntimeException refused) {
                trace.end(refused);
                throw refused;
            }
        });
    }

    /** {@code command} with the trace's headers: the same message, request and aggregate. */
    public static CommandMessage carrying(CommandMessage command, MessageTrace trace) {
        return new CommandMessage(
                command.messageId(),
                command.aggregateId(),
                command.requestId(),
                command.command(),
                command.createdAt(),
                trace.headers(command.headers()));
    }

    /** {@code stream} with the trace's headers: the same stream otherwise. */
    public static DomainEventStream carrying(DomainEventStream stream, MessageTrace trace) {
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

    private static Mono<CommandResult> traced(MessageTrace trace, Mono<CommandResult> sending) {
        return sending.doOnSuccess(result -> trace.end(null))
                .doOnError(trace::end)
                .doOnCancel(() -> trace.end(new CancellationException("the sender cancelled the send")));
    }

    @Override
    public String toString() {
        return "TracedCommandGateway[" + delegate + ", " + tracing + "]";
    }
}
