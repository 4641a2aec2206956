package dev.lanes.command.lane;

import dev.lanes.api.NonRecoverableException;
import dev.lanes.command.CommandProgress;
import dev.lanes.command.CommandRejectedEarlierException;
import dev.lanes.command.CommandResults;
import dev.lanes.command.LaneReports;
import dev.lanes.command.StoredCommands;
import dev.lanes.command.TracedCommandGateway;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.event.DomainEventBus;
import dev.lanes.eventsourcing.AggregateLoader;
import dev.lanes.eventsourcing.CommandRefusal;
import dev.lanes.eventsourcing.DuplicateAggregateIdException;
import dev.lanes.eventsourcing.DuplicateRequestIdException;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.EventVersionConflictException;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.internal.Immediate;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.modeling.AggregateState;
import dev.lanes.modeling.CommandRejectedException;
import dev.lanes.tracing.MessageTrace;
import dev.lanes.tracing.MessageTracing;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;

/**
 * Handles one command inside its lane: load (cache, or latest snapshot + tail) -> decide -> evolve -> append ->
 * publish -> report.
 *
 * <p>Outcomes: a handler's exception or a non-recoverable store error fails the command and completes the lane
 * normally, leaving the aggregate unchanged; a rule's refusal ({@link CommandRejectedException}) is stored under the
 * command's request id first ({@link EventStore#recordRefusal}), so that a resend is answered with it. Anything else (a
 * version conflict, a store outage) evicts the cached state and errors, so the lane's retry policy reloads and decides
 * again, then parks. Publication happens only after a successful append, and a failed publication never re-runs the
 * command.
 *
 * <p>Truth for the sender: the lane reports its progress ({@link CommandProgress}) so that a stop is answered with what
 * the store holds. A request id the store already holds is answered with that stored stream (or refusal): nobody asks
 * the store before a command is decided; the lane asks it when the store refuses the append under the request id
 * ({@link DuplicateRequestIdException}: a stream or a refusal holds it), when the handler fails or a rule refuses the
 * command, and when the handler decides nothing (a resend decided against a state that already holds what its first
 * send did can fail, be refused or change nothing without reaching the append). A resend is thus decided again, and its
 * decision is thrown away for what its request id got the first time: handlers decide, their side effects are not
 * undone. After an append whose outcome is unknown (the store failed without saying whether it committed), the retry
 * first asks the store for the request id, so a commit whose acknowledgement was lost is answered (and published)
 * instead of being decided again. A command its bus may have delivered before ({@link
 * MessageExchange#mayBeRedelivered()}) is checked the same way first: a redelivered command is answered with what it
 * stored, never decided again against a state that already holds its own events.
 */
final class AggregateProcessor<S> {
    private static final Logger log = LoggerFactory.getLogger(AggregateProcessor.class);

    private final AggregateDefinition<S> definition;
    private final EventStore eventStore;
    private final AggregateLoader<S> loader;
    private final DomainEventBus eventBus;
    private final List<HandlerInterceptor> interceptors;
    private final MessageTracing tracing;
    /** The bus's messaging system when it is not the in-process bus (a publication is then traced), else null. */
    private final @Nullable String remoteBus;

    private final CommandResults results;
    private final StateCache<S> cache;
    /** Commands (message ids) whose last append failed without saying whether it committed; held until they end. */
    private final Set<String> unknownAppends = ConcurrentHashMap.newKeySet();

    AggregateProcessor(
            AggregateDefinition<S> definition,
            EventStore eventStore,
            SnapshotStore snapshotStore,
            DomainEventBus eventBus,
            CommandResults results,
            int cacheCapacity,
            List<HandlerInterceptor> interceptors,
            MessageTracing tracing) {
        this.interceptors = List.copyOf(interceptors);
        this.tracing = tracing;
        this.definition = definition;
        this.eventStore = eventStore;
        this.loader = new AggregateLoader<>(definition, eventStore, snapshotStore);
        this.eventBus = eventBus;
        String system = eventBus.messagingSystem();
        this.remoteBus = system.equals("lanes") ? null : system;
        this.results = results;
        this.cache = new StateCache<>(cacheCapacity);
    }

    Mono<Void> handle(MessageExchange<CommandMessage> exchange) {
        CommandMessage command = exchange.message();
        CommandProgress progress = LaneReports.handling(results, command);
        MessageTrace trace = tracing == MessageTracing.NONE ? MessageTrace.NONE : tracing.command(command);
        Mono<Void> handling = exchange.mayBeRedelivered() || unknownAppends.contains(command.messageId())
                ? storedBefore(command, progress, true)
                        .switchIfEmpty(Mono.defer(
                                () -> decide(command, progress, trace).thenReturn(true)))
                        .then()
                : decide(command, progress, trace);
        if (handling == Mono.<Void>empty()) {
            trace.end(null);
            forget(command); // every step answered at once and the command ended: nothing to subscribe
            return handling;
        }
        if (trace != MessageTrace.NONE) {
            handling = handling.doOnSuccess(done -> trace.end(null))
                    .doOnError(error -> trace.end(error instanceof CommandFailed failed ? failed.handlerError : error))
                    .doOnCancel(() -> trace.end(new CancellationException("the lane cancelled " + command)));
        }
        return handling.doOnSuccess(done -> forget(command))
                .onErrorResume(CommandFailed.class, failed -> {
                    forget(command);
                    return storedOrFailed(command, progress, failed.handlerError);
                })
                .doOnError(error -> cache.evict(command.aggregateId()))
                .onErrorResume(NonRecoverableException.class, error -> {
                    forget(command);
                    LaneReports.failed(results, command, error);
                    return Mono.empty();
                });
    }

    /**
     * The handler (or an applier) failed, or a rule refused the command: if its request id got an answer before (this
     * is a resend, decided against a state that holds what the first send did: "already open", "insufficient funds"),
     * that answer; else the failure, a rule's refusal remembered first.
     */
    private Mono<Void> storedOrFailed(CommandMessage command, CommandProgress progress, Throwable handlerError) {
        return storedBefore(command, progress, false)
                .switchIfEmpty(Mono.defer(() -> (handlerError instanceof CommandRejectedException rejected
                                ? remembered(command, rejected)
                                : Mono.<Void>fromRunnable(() -> LaneReports.failed(results, command, handlerError)))
                        .thenReturn(true)))
                .then();
    }

    /**
     * A rule refused the command, and its request id has no answer yet: the refusal is stored under its request id
     * before its sender learns it, so that a resend of the request id is answered with it. A store that cannot take it
     * leaves the request id free (logged); the sender is answered with the rejection either way.
     */
    private Mono<Void> remembered(CommandMessage command, CommandRejectedException rejected) {
        CommandRefusal refusal = new CommandRefusal(
                command.aggregateId(),
                command.requestId(),
                command.messageId(),
                rejected.getClass().getName(),
                String.valueOf(rejected.getMessage()),
                command.headers().get(CommandMessage.HASH_HEADER),
                Instant.now().truncatedTo(ChronoUnit.MICROS));
        return eventStore
                .recordRefusal(refusal)
                .onErrorResume(error -> {
                    log.warn(
                            "{} was rejected but its refusal could not be stored: a resend of request id {} will be"
                                    + " decided again",
                            command,
                            command.requestId(),
                            error);
                    return Mono.empty();
                })
                .then(Mono.fromRunnable(() -> LaneReports.failed(results, command, rejected)));
    }

    /** The command ended (handled, failed or parked): nothing more to remember about it. */
    void forget(CommandMessage command) {
        unknownAppends.remove(command.messageId());
    }

    /*
     * Each step below takes a step's answer with a plain call when its Mono is a Callable (a cached state, a handler
     * registered with AggregateDefinition.Builder#handle, the in-memory store and bus), as Reactor's own operators do
     * with such sources, and subscribes otherwise. A command whose every step answers at once returns Mono.empty():
     * nothing is assembled or subscribed for it. The outcomes are the same either way.
     */

    private Mono<Void> decide(CommandMessage command, CommandProgress progress, MessageTrace trace) {
        AggregateState<S> cached = cache.get(command.aggregateId());
        if (cached != null) {
            trace.step(MessageTrace.Step.LOAD);
            return decide(cached, command, progress, trace);
        }
        return loader.load(command.aggregateId()).flatMap(state -> {
            trace.step(MessageTrace.Step.LOAD);
            return decide(state, command, progress, trace);
        });
    }

    private Mono<Void> decide(
            AggregateState<S> state, CommandMessage command, CommandProgress progress, MessageTrace trace) {
        Mono<List<Object>> decided = intercepted(state, command, definition.decide(state.state(), command.command()));
        if (!(decided instanceof Callable<?> ready)) {
            return decided.onErrorMap(CommandFailed::new).flatMap(events -> {
                trace.step(MessageTrace.Step.DECIDE);
                return decided(state, command, events, progress, trace);
            });
        }
        List<Object> events;
        try {
            @SuppressWarnings("unchecked")
            List<Object> answered = (List<Object>) ready.call();
            events = answered == null ? List.of() : answered;
        } catch (Throwable handlerError) {
            Exceptions.throwIfJvmFatal(handlerError);
            return Mono.error(new CommandFailed(Exceptions.unwrap(handlerError)));
        }
        trace.step(MessageTrace.Step.DECIDE);
        return decided(state, command, events, progress, trace);
    }

    /** The handler within the interceptors, the first registered outermost; what one throws fails the command. */
    private Mono<List<Object>> intercepted(
            AggregateState<S> state, CommandMessage command, Mono<List<Object>> handler) {
        Mono<List<Object>> chain = handler;
        for (int i = interceptors.size() - 1; i >= 0; i--) {
            HandlerInterceptor interceptor = interceptors.get(i);
            Mono<List<Object>> inner = chain;
            chain = Mono.defer(() -> interceptor.intercept(command, state.state(), inner));
        }
        return chain;
    }

    private Mono<Void> decided(
            AggregateState<S> state,
            CommandMessage command,
            List<Object> decided,
            CommandProgress progress,
            MessageTrace trace) {
        if (decided.isEmpty()) {
            // nothing to append, so the store's request id key cannot say whether this is a resend: ask it
            return storedBefore(command, progress, false)
                    .switchIfEmpty(Mono.fromCallable(() -> {
                        LaneReports.processed(results, command, 0, List.of());
                        return true;
                    }))
                    .then();
        }
        // one immutable copy (none if immutable already): the stream, the state and every answer share it
        return append(state, command, List.copyOf(decided), progress, trace);
    }

    private Mono<Void> append(
            AggregateState<S> state,
            CommandMessage command,
            List<Object> events,
            CommandProgress progress,
            MessageTrace trace) {
        AggregateState<S> next;
        try {
            next = definition.evolve(state, state.nextVersion(), events);
        } catch (RuntimeException applierFailed) {
            return Mono.error(new CommandFailed(applierFailed));
        }
        if (!progress.beginAppend()) {
            log.debug("{} not appended: its sender was told it was stopped before its append", command);
            return Mono.empty();
        }
        // traced, the events carry the lane's trace context: what handles them (here, or after the bus or the store)
        // continues this trace
        DomainEventStream stream = DomainEventStream.of(
                trace == MessageTrace.NONE ? command : TracedCommandGateway.carrying(command, trace),
                state.nextVersion(),
                events);
        Mono<Void> appending = eventStore.append(stream);
        return Immediate.then(appending, refused -> {
            if (refused != null) {
                return notAppended(command, progress, refused);
            }
            trace.step(MessageTrace.Step.APPEND);
            return appended(command, progress, stream, next, events, trace);
        });
    }

    private Mono<Void> notAppended(CommandMessage command, CommandProgress progress, Throwable error) {
        appendFailed(command, progress, error);
        return error instanceof DuplicateRequestIdException duplicate
                ? answerStored(command, progress, duplicate)
                : Mono.error(error);
    }

    /** The request id is stored already: answer with what it stored, or fail with the duplicate if nothing is found. */
    private Mono<Void> answerStored(
            CommandMessage command, CommandProgress progress, DuplicateRequestIdException duplicate) {
        return storedBefore(command, progress, false)
                .switchIfEmpty(Mono.error(duplicate))
                .then();
    }

    /** After a successful append: the state moves on, the stream is published, then the sender is answered. */
    private Mono<Void> appended(
            CommandMessage command,
            CommandProgress progress,
            DomainEventStream stream,
            AggregateState<S> next,
            List<Object> events,
            MessageTrace trace) {
        progress.stored(next.version(), events);
        cache.put(next);
        String system = remoteBus;
        MessageTrace producing =
                trace == MessageTrace.NONE || system == null ? MessageTrace.NONE : tracing.publish(stream, system);
        Mono<Void> publishing = producing == MessageTrace.NONE
                ? eventBus.publish(stream)
                : eventBus.publish(TracedCommandGateway.carrying(stream, producing))
                        .doOnSuccess(done -> producing.end(null))
                        .doOnError(producing::end)
                        .doOnCancel(() -> producing.end(new CancellationException("the lane cancelled " + stream)));
        return Immediate.then(publishing, failed -> {
            if (failed != null) {
                publishFailed(stream, failed);
            }
            trace.step(MessageTrace.Step.PUBLISH);
            LaneReports.processed(results, command, next.version(), events);
            return Mono.empty();
        });
    }

    private void appendFailed(CommandMessage command, CommandProgress progress, Throwable error) {
        boolean refused = error instanceof EventVersionConflictException
                || error instanceof DuplicateAggregateIdException
                || error instanceof DuplicateRequestIdException
                || error instanceof IllegalArgumentException;
        progress.appendFailed(refused);
        if (!refused) {
            unknownAppends.add(command.messageId());
        }
    }

    /**
     * Answers the command with the stream its request id already stored, if any (emits {@code true}). Asked before the
     * command is decided ({@code unconfirmed}: its bus may have delivered it before, or its last append did not say
     * whether it committed), a stream that an earlier attempt of this very command stored is published now: that
     * attempt may have ended before it published. Asked after a decision (a resend), nothing is published again: the
     * attempt that stored the stream published it, or logged why not.
     */
    private Mono<Boolean> storedBefore(CommandMessage command, CommandProgress progress, boolean unconfirmed) {
        return eventStore
                .findRequest(command.aggregateId(), command.requestId())
                .flatMap(outcome -> {
                    CommandRefusal refusal = outcome.refusal();
                    if (refusal != null) { // refused before: answered with that refusal, not decided again
                        CommandRejectedEarlierException earlier = StoredCommands.rejectedEarlier(command, refusal);
                        return Mono.fromRunnable(() -> LaneReports.failed(results, command, earlier))
                                .thenReturn(true);
                    }
                    // another command of this request id is refused as a reuse
                    DomainEventStream stored = StoredCommands.storedOrThrow(command, outcome);
                    progress.storedEarlier(stored.commandId(), stored.version(), stored.payloads());
                    Mono<Void> published = unconfirmed && stored.commandId().equals(command.messageId())
                            ? logged(eventBus.publish(stored), stored)
                            : Mono.empty();
                    return published
                            .then(Mono.fromRunnable(() -> LaneReports.storedEarlier(
                                    results, command, stored.commandId(), stored.version(), stored.payloads())))
                            .thenReturn(true);
                });
    }

    /** A publication whose failure is logged and goes no further: the stream stays in the store either way. */
    private static Mono<Void> logged(Mono<Void> publishing, DomainEventStream stream) {
        return publishing.onErrorResume(error -> {
            publishFailed(stream, error);
            return Mono.empty();
        });
    }

    private static void publishFailed(DomainEventStream stream, Throwable error) {
        log.error("{} was appended but could not be published; it stays in the event store", stream, error);
    }

    /** Marks a failure of the user's handler or applier: the command fails, the lane is fine. */
    private static final class CommandFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient Throwable handlerError;

        CommandFailed(Throwable handlerError) {
            super(handlerError.getMessage(), handlerError, false, false);
            this.handlerError = handlerError;
        }
    }
}
