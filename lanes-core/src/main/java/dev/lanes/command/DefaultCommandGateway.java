package dev.lanes.command;

import dev.lanes.command.StageNotReachedException.Reason;
import dev.lanes.command.StageNotReachedException.Storage;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.RequestOutcome;
import dev.lanes.internal.Immediate;
import dev.lanes.internal.Require;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Joins a send of the same message that is in flight (a wait of its own, no second dispatch); waits behind a send of
 * another message of the same request id that is in flight, then sends again; else registers the sender's wait with
 * {@link CommandResults} and sends. A command that fails to send leaves nothing behind.
 *
 * <p>The store is not asked for the request id on the way: a command's lane learns that its request id is stored when
 * the store refuses its append ({@code DuplicateRequestIdException}, the store's unique key), or when its handler
 * refused it or decided nothing, and answers it then with what the request id got the first time. A sender waiting for
 * {@link WaitStage#PROJECTED} is the exception: the projections of a stored stream never report again, so such a send
 * asks the store first, and a request id it holds is answered from it at {@link WaitStage#PROCESSED} (or with the
 * refusal its command got).
 */
final class DefaultCommandGateway implements CommandGateway {
    private final CommandBus commandBus;
    private final EventStore eventStore;
    private final CommandResults results;
    private final List<DispatchInterceptor> interceptors;

    DefaultCommandGateway(CommandBus commandBus, EventStore eventStore, CommandResults results) {
        this(commandBus, eventStore, results, List.of());
    }

    DefaultCommandGateway(
            CommandBus commandBus,
            EventStore eventStore,
            CommandResults results,
            List<DispatchInterceptor> interceptors) {
        this.commandBus = Objects.requireNonNull(commandBus, "commandBus");
        this.eventStore = Objects.requireNonNull(eventStore, "eventStore");
        this.results = Objects.requireNonNull(results, "results");
        this.interceptors = List.copyOf(interceptors);
    }

    @Override
    public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage) {
        return send(command, waitStage, results.defaultTimeout());
    }

    @Override
    public Mono<CommandResult> send(CommandMessage command, WaitStage waitStage, Duration timeout) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(waitStage, "waitStage");
        Require.positive(timeout, "timeout");
        if (interceptors.isEmpty()) {
            return Mono.defer(() -> dispatch(command, waitStage, timeout));
        }
        return Mono.deferContextual(context -> dispatch(intercepted(command, context), waitStage, timeout));
    }

    /** What the interceptors make of {@code command}, in order; what one throws ends the send. */
    private CommandMessage intercepted(CommandMessage command, ContextView context) {
        CommandMessage current = command;
        for (DispatchInterceptor interceptor : interceptors) {
            CommandMessage next = interceptor.intercept(current, context);
            if (next == null
                    || !next.messageId().equals(command.messageId())
                    || !next.aggregateId().equals(command.aggregateId())
                    || !next.requestId().equals(command.requestId())) {
                throw new IllegalStateException("dispatch interceptor " + interceptor + " returned " + next + " for "
                        + command + ": it must return the message with its message id, aggregate id and request id");
            }
            current = next;
        }
        return current;
    }

    private Mono<CommandResult> dispatch(CommandMessage command, WaitStage waitStage, Duration timeout) {
        return waitStage == WaitStage.PROJECTED
                ? lookup(command, waitStage, timeout)
                : track(command, waitStage, timeout);
    }

    /**
     * Answers from the store, or sends: for a {@code PROJECTED} wait only. The lookup counts against the sender's
     * timeout: a store that does not answer (a locked table, a server that accepts connections and never answers) ends
     * the send at its deadline, timed out with its storage unknown, and the wait that follows a lookup has only the
     * time the lookup left.
     */
    private Mono<CommandResult> lookup(CommandMessage command, WaitStage waitStage, Duration timeout) {
        Mono<RequestOutcome> lookup = eventStore.findRequest(command.aggregateId(), command.requestId());
        if (!(lookup instanceof Callable<?> now)) {
            long started = results.timer().now(TimeUnit.NANOSECONDS);
            return lookup.timeout(timeout, results.timer())
                    .onErrorMap(TimeoutException.class, late -> timedOut(command, waitStage, late))
                    .map(stored -> storedResult(command, stored))
                    .switchIfEmpty(Mono.defer(() -> {
                        Duration left = timeout.minusNanos(results.timer().now(TimeUnit.NANOSECONDS) - started);
                        return left.isNegative() || left.isZero()
                                ? Mono.error(timedOut(command, waitStage, null))
                                : track(command, waitStage, left);
                    }));
        }
        Object stored; // the in-memory store answers at once: no operators for the lookup
        try {
            stored = now.call();
        } catch (Throwable error) {
            Exceptions.throwIfJvmFatal(error);
            return Mono.error(Exceptions.unwrap(error));
        }
        if (stored == null) {
            return track(command, waitStage, timeout);
        }
        try {
            return Mono.just(storedResult(command, (RequestOutcome) stored));
        } catch (RuntimeException refused) {
            return Mono.error(refused);
        }
    }

    private Mono<CommandResult> track(CommandMessage command, WaitStage waitStage, Duration timeout) {
        TrackedCommand.Wait wait = results.track(command, waitStage, timeout);
        if (wait.role == TrackedCommand.Wait.Role.JOINED) {
            return wait.outcome(); // the same message is in flight: this sender waits for it, it is not sent again
        }
        if (wait.role == TrackedCommand.Wait.Role.BEHIND) {
            // another message of the request is in flight (or this one just ended): once it ended, this one is sent,
            // and its lane answers it with what the other stored
            return wait.entry
                    .ended()
                    .timeout(timeout, results.timer())
                    .onErrorMap(TimeoutException.class, late -> timedOut(command, waitStage, late))
                    .then(Mono.defer(() -> dispatch(command, waitStage, timeout)));
        }
        // the wait is not held behind the bus's acknowledgement (a broker that never acknowledges, a producer stuck in
        // its retries, must not keep the sender past its timeout): the send starts when the wait is subscribed, and a
        // failed send ends the wait with its error
        return wait.outcome().doOnSubscribe(subscription -> sendTracked(command));
    }

    /** The sender's deadline passed before the command's stage was known: whether it is stored is not known here. */
    private static StageNotReachedException timedOut(
            CommandMessage command, WaitStage waitStage, @Nullable Throwable cause) {
        return new StageNotReachedException(command, Reason.TIMED_OUT, waitStage, null, Storage.UNKNOWN, null, cause);
    }

    private void sendTracked(CommandMessage command) {
        Mono<Void> sending;
        try {
            sending = commandBus.send(command);
        } catch (RuntimeException error) {
            results.failed(command, error);
            return;
        }
        Immediate.then(sending, results, command, HANDED_OVER); // the in-memory bus: no subscriber for the hand-over
    }

    /** Tells the sender of a command the bus refused: at once, or when the hand-over fails. */
    private static final Immediate.Continuation<CommandResults, CommandMessage, Boolean> HANDED_OVER =
            new Immediate.Continuation<>() {
                @Override
                public Boolean ended(CommandResults results, CommandMessage command, @Nullable Throwable refused) {
                    if (refused != null) {
                        results.failed(command, refused);
                    }
                    return true;
                }

                @Override
                public Boolean running(CommandResults results, CommandMessage command, Mono<?> sending) {
                    sending.subscribe(null, error -> results.failed(command, error));
                    return true;
                }
            };

    /**
     * What a request id stored, as the answer to a send of it; a request id whose command was refused answers with the
     * refusal ({@link CommandRejectedEarlierException}).
     */
    private static CommandResult storedResult(CommandMessage command, RequestOutcome outcome) {
        DomainEventStream stored = StoredCommands.storedOrThrow(command, outcome);
        return new CommandResult(
                stored.commandId(),
                command.requestId(),
                command.aggregateId(),
                WaitStage.PROCESSED,
                stored.version(),
                stored.payloads());
    }

    @Override
    public String toString() {
        return "DefaultCommandGateway[" + commandBus + ", " + eventStore + "]";
    }
}
