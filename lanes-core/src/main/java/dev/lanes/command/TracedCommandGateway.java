package dev.lanes.command;

import dev.lanes.internal.Internal;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.tracing.MessageTrace;
import dev.lanes.tracing.MessageTracing;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * Traces each send of its delegate: the trace starts at subscription, on the subscribing thread, and ends once with the
 * send's outcome (its result, its error, or a cancellation).
 *
 * <p>One operator per send ({@link TracedSend}): it starts the trace when subscribed and ends it from the signals it
 * passes on, instead of a deferral and three peeking operators with a lambda each.
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
        return new TracedSend(this, command, waitStage, null);
    }

    @Override
    public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage, Duration timeout) {
        return new TracedSend(this, command, waitStage, timeout);
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

    @Override
    public String toString() {
        return "TracedCommandGateway[" + delegate + ", " + tracing + "]";
    }

    /**
     * One traced send: each subscription starts a trace on the subscribing thread (given the subscriber's context),
     * sends the command with the trace's headers through the delegate, and ends the trace once with the first of the
     * delegate's result, error, or the subscriber's cancellation. A delegate that throws instead of returning a
     * {@code Mono} ends the trace with what it threw, which the subscriber gets as its error.
     */
    private static final class TracedSend extends Mono<CommandResult> {
        private final TracedCommandGateway gateway;
        private final CommandMessage command;
        private final WaitStage waitStage;
        private final @Nullable Duration timeout;

        TracedSend(
                TracedCommandGateway gateway, CommandMessage command, WaitStage waitStage, @Nullable Duration timeout) {
            this.gateway = gateway;
            this.command = command;
            this.waitStage = waitStage;
            this.timeout = timeout;
        }

        @Override
        public void subscribe(CoreSubscriber<? super CommandResult> actual) {
            MessageTrace trace = gateway.tracing.send(command, actual.currentContext());
            Mono<CommandResult> sending;
            try {
                CommandMessage carried = carrying(command, trace);
                Duration limit = timeout;
                sending = limit == null
                        ? gateway.delegate.send(carried, waitStage)
                        : gateway.delegate.send(carried, waitStage, limit);
            } catch (RuntimeException refused) {
                trace.end(refused);
                Operators.error(actual, Operators.onOperatorError(refused, actual.currentContext()));
                return;
            }
            sending.subscribe(new TraceEnding(actual, trace));
        }
    }

    /**
     * Passes the send's signals on and ends its trace once, before passing on the first of: the result (or completion
     * without one), the error, the cancellation. The signals come as Reactive Streams order them; a cancellation may
     * race with the result, hence the one atomic flag.
     */
    private static final class TraceEnding implements CoreSubscriber<CommandResult>, Subscription {
        private static final AtomicIntegerFieldUpdater<TraceEnding> ENDED =
                AtomicIntegerFieldUpdater.newUpdater(TraceEnding.class, "ended");

        private final CoreSubscriber<? super CommandResult> actual;
        private final MessageTrace trace;
        private @Nullable Subscription upstream;
        private volatile int ended;

        TraceEnding(CoreSubscriber<? super CommandResult> actual, MessageTrace trace) {
            this.actual = actual;
            this.trace = trace;
        }

        @Override
        public Context currentContext() {
            return actual.currentContext();
        }

        @Override
        public void onSubscribe(Subscription s) {
            if (Operators.validate(upstream, s)) {
                upstream = s;
                actual.onSubscribe(this);
            }
        }

        @Override
        public void onNext(CommandResult result) {
            end(null);
            actual.onNext(result);
        }

        @Override
        public void onError(Throwable error) {
            end(error);
            actual.onError(error);
        }

        @Override
        public void onComplete() {
            end(null);
            actual.onComplete();
        }

        @Override
        public void request(long n) {
            Subscription s = upstream;
            if (s != null) {
                s.request(n);
            }
        }

        @Override
        public void cancel() {
            if (ended == 0 && ENDED.compareAndSet(this, 0, 1)) {
                trace.end(new CancellationException("the sender cancelled the send"));
            }
            Subscription s = upstream;
            if (s != null) {
                s.cancel();
            }
        }

        private void end(@Nullable Throwable error) {
            if (ended == 0 && ENDED.compareAndSet(this, 0, 1)) {
                trace.end(error);
            }
        }
    }
}
