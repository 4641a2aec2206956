package dev.lanes.processing;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandGateway;
import dev.lanes.internal.Require;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A named group of event functions; the name is its consumer group on the bus.
 *
 * <p>Semantics of one stream: its events are handled one after another, in sequence order. For one event, every
 * function registered for its class or a supertype runs, <em>concurrently</em>, and all of them finish before the next
 * event (and the lane's next stream) starts. There is no order among them, whatever the registration order. If any
 * fails, the others still finish, then the stream is retried as a whole by the lane (so functions that succeeded run
 * again: they must be idempotent), and parked when retries are exhausted.
 */
public final class EventProcessor {
    private final String name;
    private final ProcessorKind kind;
    private final Map<MaterializedNamedAggregate, List<Registration>> registrations;
    private final ConcurrentHashMap<ResolvedKey, List<Registration>> resolved = new ConcurrentHashMap<>();

    private record Registration(Class<?> eventType, EventFunction<Object> function) {}

    private record ResolvedKey(MaterializedNamedAggregate type, Class<?> eventClass) {}

    private EventProcessor(
            String name, ProcessorKind kind, Map<MaterializedNamedAggregate, List<Registration>> registrations) {
        this.name = name;
        this.kind = kind;
        this.registrations = Map.copyOf(registrations);
    }

    /** A processor of plain functions: handlers, projections or snapshotters. */
    public static Builder builder(String name, ProcessorKind kind) {
        return new Builder(name, kind);
    }

    /** A saga: its functions send commands through {@code gateway} with request ids derived from the event. */
    public static SagaBuilder saga(String name, CommandGateway gateway) {
        return new SagaBuilder(name, gateway);
    }

    public String name() {
        return name;
    }

    public ProcessorKind kind() {
        return kind;
    }

    /** The aggregate types whose streams this processor receives. */
    public Set<MaterializedNamedAggregate> aggregateTypes() {
        return registrations.keySet();
    }

    /** Handles one stream: events in order; per event, all its functions concurrently. */
    public Mono<Void> handle(DomainEventStream stream) {
        MaterializedNamedAggregate type = stream.aggregateId().materialize();
        return Flux.fromIterable(stream.events())
                .concatMap(event -> handleEvent(stream, event, type))
                .then();
    }

    private Mono<Void> handleEvent(DomainEventStream stream, DomainEvent event, MaterializedNamedAggregate type) {
        List<Registration> functions =
                resolved.computeIfAbsent(new ResolvedKey(type, event.payload().getClass()), this::matching);
        if (functions.isEmpty()) {
            return Mono.empty();
        }
        EventContext context = new EventContext(stream, event);
        if (functions.size() == 1) {
            return invoke(functions.get(0), event, context);
        }
        return Flux.fromIterable(functions)
                .flatMapDelayError(registration -> invoke(registration, event, context), functions.size(), 1)
                .then();
    }

    private List<Registration> matching(ResolvedKey key) {
        return registrations.getOrDefault(key.type(), List.of()).stream()
                .filter(registration -> registration.eventType().isAssignableFrom(key.eventClass()))
                .toList();
    }

    private static Mono<Void> invoke(Registration registration, DomainEvent event, EventContext context) {
        return Mono.defer(() -> Objects.requireNonNull(
                registration.function().handle(event.payload(), context), "event function returned null"));
    }

    @Override
    public String toString() {
        return "EventProcessor[" + name + ", " + kind + ", " + registrations.keySet() + "]";
    }

    /** Registers plain event functions. */
    public static final class Builder {
        private final String name;
        private final ProcessorKind kind;
        private final Map<MaterializedNamedAggregate, List<Registration>> registrations = new LinkedHashMap<>();

        private Builder(String name, ProcessorKind kind) {
            this.name = Require.notBlank(name, "name");
            this.kind = Objects.requireNonNull(kind, "kind");
        }

        /** Runs {@code function} for every event of {@code namedAggregate} that is an {@code eventType}. */
        @SuppressWarnings("unchecked")
        public <E> Builder on(NamedAggregate namedAggregate, Class<E> eventType, EventFunction<? super E> function) {
            Objects.requireNonNull(eventType, "eventType");
            Objects.requireNonNull(function, "function");
            registrations
                    .computeIfAbsent(namedAggregate.materialize(), type -> new ArrayList<>())
                    .add(new Registration(eventType, (EventFunction<Object>) function));
            return this;
        }

        public EventProcessor build() {
            if (registrations.isEmpty()) {
                throw new IllegalStateException("Event processor " + name + " has no event function");
            }
            return new EventProcessor(name, kind, registrations);
        }
    }

    /** Registers saga functions. */
    public static final class SagaBuilder {
        private final Builder delegate;
        private final CommandGateway gateway;

        private SagaBuilder(String name, CommandGateway gateway) {
            this.delegate = new Builder(name, ProcessorKind.SAGA);
            this.gateway = Objects.requireNonNull(gateway, "gateway");
        }

        public <E> SagaBuilder on(NamedAggregate namedAggregate, Class<E> eventType, SagaFunction<? super E> function) {
            Objects.requireNonNull(function, "function");
            delegate.on(
                    namedAggregate,
                    eventType,
                    (E event, EventContext context) ->
                            function.handle(event, new SagaContext(context, delegate.name, gateway)));
            return this;
        }

        public EventProcessor build() {
            return delegate.build();
        }
    }
}
