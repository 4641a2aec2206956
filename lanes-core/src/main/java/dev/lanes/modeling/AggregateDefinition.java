package dev.lanes.modeling;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One aggregate type as a decider: how its state starts, which events a command produces, how an event changes the
 * state. Handlers are looked up by the runtime class of the command or event, then by its superclasses and interfaces
 * (so a sealed interface can have one handler). No reflection on user types beyond {@code getClass()}.
 *
 * <p>Thread-safety: immutable after {@link Builder#build()}; handlers must be pure functions of their arguments.
 *
 * @param <S> the state type
 */
public final class AggregateDefinition<S> {
    private final MaterializedNamedAggregate namedAggregate;
    private final Function<AggregateId, S> initialState;
    private final Map<Class<?>, BiFunction<S, Object, Mono<List<Object>>>> commandHandlers;
    private final List<Class<?>> commandTypes;
    private final Map<Class<?>, BiFunction<S, Object, S>> eventAppliers;
    private final ConcurrentHashMap<Class<?>, Optional<BiFunction<S, Object, Mono<List<Object>>>>> resolvedCommands =
            new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Class<?>, Optional<BiFunction<S, Object, S>>> resolvedEvents =
            new ConcurrentHashMap<>();

    private AggregateDefinition(Builder<S> builder) {
        this.namedAggregate = builder.namedAggregate;
        this.initialState = builder.initialState;
        this.commandHandlers = Map.copyOf(builder.commandHandlers);
        this.commandTypes = List.copyOf(builder.commandHandlers.keySet());
        this.eventAppliers = Map.copyOf(builder.eventAppliers);
    }

    /** Starts a definition of {@code namedAggregate} whose new instances start as {@code initialState.apply(id)}. */
    public static <S> Builder<S> builder(NamedAggregate namedAggregate, Function<AggregateId, S> initialState) {
        return new Builder<>(namedAggregate, initialState);
    }

    public MaterializedNamedAggregate namedAggregate() {
        return namedAggregate;
    }

    /** The state of an aggregate before its first stream (version 0). */
    public AggregateState<S> initial(AggregateId aggregateId) {
        return new AggregateState<>(
                aggregateId, 0, Objects.requireNonNull(initialState.apply(aggregateId), "initial state"));
    }

    /** The command classes handlers are registered for, in registration order. */
    public List<Class<?>> commandTypes() {
        return List.copyOf(commandTypes);
    }

    /** Whether a handler exists for this command's class. */
    public boolean handles(Object command) {
        return resolve(resolvedCommands, commandHandlers, command.getClass()).isPresent();
    }

    /**
     * The events {@code command} produces on {@code state}, in order. Errors with what the handler threw, or with
     * {@link IllegalArgumentException} naming the command class when no handler exists.
     *
     * <p>The handler runs when the result is subscribed. For a handler registered with {@link Builder#handle} the
     * result is a {@link java.util.concurrent.Callable} {@code Mono}, so a caller may take the events with a plain call
     * instead of a subscription (as Reactor's operators do for such sources).
     */
    public Mono<List<Object>> decide(S state, Object command) {
        Optional<BiFunction<S, Object, Mono<List<Object>>>> handler =
                resolve(resolvedCommands, commandHandlers, command.getClass());
        if (handler.isEmpty()) { // per command: no capturing lambda on the way
            return Mono.error(new IllegalArgumentException(
                    "No command handler for " + command.getClass().getName() + " on " + namedAggregate));
        }
        return handler.get().apply(state, command);
    }

    /**
     * Applies one event.
     *
     * @throws IllegalStateException naming the event class when no applier exists
     */
    public S apply(S state, Object event) {
        BiFunction<S, Object, S> applier = resolve(resolvedEvents, eventAppliers, event.getClass())
                .orElseThrow(() -> new IllegalStateException(
                        "No event applier for " + event.getClass().getName() + " on " + namedAggregate));
        return Objects.requireNonNull(applier.apply(state, event), "event applier returned null");
    }

    /** Applies events in order to a state at {@code version}, giving the state at {@code newVersion}. */
    public AggregateState<S> evolve(AggregateState<S> from, int newVersion, List<?> events) {
        S state = from.state();
        for (Object event : events) {
            state = apply(state, event);
        }
        return new AggregateState<>(from.aggregateId(), newVersion, state);
    }

    private static <H> Optional<H> resolve(
            ConcurrentHashMap<Class<?>, Optional<H>> cache, Map<Class<?>, H> handlers, Class<?> type) {
        Optional<H> cached = cache.get(type);
        if (cached != null) {
            return cached;
        }
        Optional<H> found = Optional.ofNullable(search(handlers, type));
        cache.putIfAbsent(type, found);
        return found;
    }

    /** Breadth-first over the class, its superclasses and interfaces: the nearest registered type wins. */
    private static <H> @Nullable H search(Map<Class<?>, H> handlers, Class<?> type) {
        Deque<Class<?>> queue = new ArrayDeque<>();
        queue.add(type);
        while (!queue.isEmpty()) {
            Class<?> next = queue.poll();
            H handler = handlers.get(next);
            if (handler != null) {
                return handler;
            }
            if (next.getSuperclass() != null) {
                queue.add(next.getSuperclass());
            }
            queue.addAll(List.of(next.getInterfaces()));
        }
        return null;
    }

    @Override
    public String toString() {
        return "AggregateDefinition[" + namedAggregate + ", commands " + commandHandlers.size() + ", events "
                + eventAppliers.size() + "]";
    }

    /** Collects handlers and appliers; one per class. */
    public static final class Builder<S> {
        private final MaterializedNamedAggregate namedAggregate;
        private final Function<AggregateId, S> initialState;
        private final Map<Class<?>, BiFunction<S, Object, Mono<List<Object>>>> commandHandlers = new LinkedHashMap<>();
        private final Map<Class<?>, BiFunction<S, Object, S>> eventAppliers = new LinkedHashMap<>();

        private Builder(NamedAggregate namedAggregate, Function<AggregateId, S> initialState) {
            this.namedAggregate =
                    Objects.requireNonNull(namedAggregate, "namedAggregate").materialize();
            this.initialState = Objects.requireNonNull(initialState, "initialState");
        }

        /** A handler that returns its events directly; an empty list means "nothing happened". */
        public <C> Builder<S> handle(Class<C> commandType, BiFunction<S, C, List<?>> handler) {
            Objects.requireNonNull(handler, "handler");
            MaterializedNamedAggregate type = namedAggregate;
            return register(
                    commandType,
                    (state, command) -> Mono.fromCallable(
                            () -> events(type, commandType, handler.apply(state, commandType.cast(command)))));
        }

        /** A handler that produces its events asynchronously, as a {@code Mono} or {@code Flux} of events. */
        public <C> Builder<S> handleAsync(Class<C> commandType, BiFunction<S, C, Publisher<?>> handler) {
            Objects.requireNonNull(handler, "handler");
            return register(
                    commandType,
                    (state, command) -> Mono.defer(() -> Flux.from(Objects.requireNonNull(
                                    handler.apply(state, commandType.cast(command)), "command handler returned null"))
                            .<Object>map(event -> event)
                            .collectList()));
        }

        /** How an event of {@code eventType} changes the state. */
        public <E> Builder<S> apply(Class<E> eventType, BiFunction<S, E, S> applier) {
            Objects.requireNonNull(eventType, "eventType");
            Objects.requireNonNull(applier, "applier");
            if (eventAppliers.putIfAbsent(eventType, (state, event) -> applier.apply(state, eventType.cast(event)))
                    != null) {
                throw new IllegalArgumentException(
                        "An applier for " + eventType.getName() + " is already registered on " + namedAggregate);
            }
            return this;
        }

        /** An immutable copy of what a direct handler returned, refusing a null list or event with the command's name. */
        private static List<Object> events(
                MaterializedNamedAggregate namedAggregate, Class<?> commandType, @Nullable List<?> events) {
            if (events == null) {
                throw new NullPointerException(
                        "The handler of " + commandType.getName() + " on " + namedAggregate + " returned null");
            }
            int index = 0;
            for (Object event : events) {
                if (event == null) {
                    throw new NullPointerException("The handler of " + commandType.getName() + " on " + namedAggregate
                            + " returned a null event at index " + index);
                }
                index++;
            }
            return List.copyOf(events); // none made when the handler returned an immutable list (List.of)
        }

        private Builder<S> register(Class<?> commandType, BiFunction<S, Object, Mono<List<Object>>> handler) {
            Objects.requireNonNull(commandType, "commandType");
            if (commandHandlers.putIfAbsent(commandType, handler) != null) {
                throw new IllegalArgumentException(
                        "A handler for " + commandType.getName() + " is already registered on " + namedAggregate);
            }
            return this;
        }

        public AggregateDefinition<S> build() {
            if (commandHandlers.isEmpty()) {
                throw new IllegalStateException(namedAggregate + " has no command handler");
            }
            return new AggregateDefinition<>(this);
        }
    }
}
