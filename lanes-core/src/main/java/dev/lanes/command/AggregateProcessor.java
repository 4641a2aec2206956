package dev.lanes.command;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NonRecoverableException;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.event.DomainEventBus;
import dev.lanes.eventsourcing.AggregateLoader;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.SnapshotStore;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.modeling.AggregateState;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Handles one command inside its lane: load (cache, or latest snapshot + tail) -> decide -> evolve -> append ->
 * publish -> report.
 *
 * <p>Outcomes: a handler's exception or a non-recoverable store error (duplicate id or request) fails the command and
 * completes the lane normally, leaving the aggregate unchanged. Anything else (a version conflict, a store outage)
 * evicts the cached state and errors, so the lane's retry policy reloads and decides again, then parks. Publication
 * happens only after a successful append, and a failed publication never re-runs the command.
 */
final class AggregateProcessor<S> {
    private static final Logger log = LoggerFactory.getLogger(AggregateProcessor.class);

    private final AggregateDefinition<S> definition;
    private final EventStore eventStore;
    private final AggregateLoader<S> loader;
    private final DomainEventBus eventBus;
    private final CommandResults results;
    private final StateCache<S> cache;

    AggregateProcessor(
            AggregateDefinition<S> definition,
            EventStore eventStore,
            SnapshotStore snapshotStore,
            DomainEventBus eventBus,
            CommandResults results,
            int cacheCapacity) {
        this.definition = definition;
        this.eventStore = eventStore;
        this.loader = new AggregateLoader<>(definition, eventStore, snapshotStore);
        this.eventBus = eventBus;
        this.results = results;
        this.cache = new StateCache<>(cacheCapacity);
    }

    Mono<Void> handle(MessageExchange<CommandMessage> exchange) {
        CommandMessage command = exchange.message();
        return load(command.aggregateId())
                .flatMap(state -> decide(state, command))
                .onErrorResume(CommandFailed.class, failed -> {
                    results.failed(command, failed.handlerError);
                    return Mono.empty();
                })
                .doOnError(error -> cache.evict(command.aggregateId()))
                .onErrorResume(NonRecoverableException.class, error -> {
                    results.failed(command, error);
                    return Mono.empty();
                });
    }

    private Mono<Void> decide(AggregateState<S> state, CommandMessage command) {
        return definition
                .decide(state.state(), command.command())
                .onErrorMap(CommandFailed::new)
                .flatMap(events -> events.isEmpty() ? unchanged(command) : append(state, command, events));
    }

    private Mono<Void> unchanged(CommandMessage command) {
        return Mono.fromRunnable(() -> results.processed(command, 0, List.of()));
    }

    private Mono<Void> append(AggregateState<S> state, CommandMessage command, List<Object> events) {
        AggregateState<S> next;
        try {
            next = definition.evolve(state, state.nextVersion(), events);
        } catch (RuntimeException applierFailed) {
            return Mono.error(new CommandFailed(applierFailed));
        }
        DomainEventStream stream = DomainEventStream.of(command, state.nextVersion(), events);
        return eventStore.append(stream).then(Mono.defer(() -> {
            cache.put(next);
            return publish(stream).then(Mono.fromRunnable(() -> results.processed(command, next.version(), events)));
        }));
    }

    private Mono<Void> publish(DomainEventStream stream) {
        return eventBus.publish(stream).onErrorResume(error -> {
            log.error("{} was appended but could not be published; it stays in the event store", stream, error);
            return Mono.empty();
        });
    }

    /** The latest state: cached, or the latest snapshot plus the streams after it. */
    Mono<AggregateState<S>> load(AggregateId aggregateId) {
        AggregateState<S> cached = cache.get(aggregateId);
        return cached != null ? Mono.just(cached) : loader.load(aggregateId);
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
