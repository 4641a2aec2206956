package dev.lanes.process;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandGateway;
import dev.lanes.deadline.Deadline;
import dev.lanes.deadline.DeadlineStore;
import dev.lanes.internal.Require;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.EventContext;
import dev.lanes.modeling.AggregateDefinition;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.saga.SagaContext;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * A process manager: a stateful reaction to the events of several aggregates that belong to one business transaction
 * (an order's placement, payment and shipment), correlated by a business key, with durable deadlines.
 *
 * <pre>{@code
 * ProcessManager<Fulfilment> orders = ProcessManager.builder("order-fulfilment", FULFILMENT, Fulfilment.class, Fulfilment::new)
 *         .startOn(ORDER, OrderPlaced.class, OrderPlaced::orderId, (state, placed, context) -> ...)
 *         .on(PAYMENT, PaymentReceived.class, PaymentReceived::orderId, (state, paid, context) -> ...)
 *         .onDeadline("payment-due", (state, due, context) -> ...)
 *         .deadlines(deadlineStore, clock)
 *         .build();
 * Lanes.builder().processManager(orders).deadlines(store)...
 * }</pre>
 *
 * <p><b>How it runs.</b> Each instance is an event-sourced aggregate of the process manager's own type whose id is the
 * business key; its "commands" are the events it reacts to. The manager's saga ({@link #processor}) sends each event
 * it declared to the instance its association function names, through the saga outbox with a request id derived from
 * the event, so a redelivered event is applied once. The instance's command lane (KEYED by the instance id) runs one
 * input at a time, in the order received, against its stored state; instances run concurrently. What a reaction
 * returns and records is appended as one stream ({@link ProcessEvent}); the same saga then sends the recorded commands
 * and schedules or cancels the deadlines in the {@link DeadlineStore}. A deadline is sent back to the instance by a
 * {@link dev.lanes.deadline.DeadlineRunner} as a {@link ProcessDeadline} with the request id {@code deadline:<id>}: it
 * is handled once, and ignored if it was cancelled or replaced meanwhile.
 *
 * <p><b>Order.</b> Events of one source aggregate reach an instance in their order (the outbox sends them in order;
 * a send retried after a transient failure may pass a later one). Events of different aggregates reach it in the order
 * their sends arrive: there is no order between aggregates to keep.
 *
 * <p><b>Start and end.</b> An event registered with {@link Builder#startOn} starts an instance; any other event for
 * an instance that has not started is ignored (nothing stored). {@link ProcessContext#end} cancels the live deadlines,
 * and the instance then ignores every input. Ended instances are archived, not deleted: their stream stays in the
 * event store as the history of the process, and costs a load of their (short) stream only if an event for them
 * arrives again.
 *
 * <p><b>Failures.</b> A reaction that throws stores nothing, and its command fails. The failure comes back to the
 * manager's saga as the reply of the command that carried the input; the saga's lane retries that reply, then parks
 * it in the dead-letter queue under the saga's name and the source aggregate (whose later events for this manager
 * wait behind it), from where {@code lanes parked retry} sends the input again with its request id. A command the
 * process sent that fails parks the same way, under the instance. A deadline's reaction that throws is fired again by
 * the {@link dev.lanes.deadline.DeadlineRunner}, then parked under the instance's commands.
 *
 * @param <S> the process state
 */
public final class ProcessManager<S> {
    private final String name;
    private final MaterializedNamedAggregate type;
    private final Class<S> stateType;
    private final Function<String, S> initialState;
    private final Map<Class<?>, Route<S>> routes;
    private final Map<String, ProcessReaction<S, ProcessDeadline>> deadlineReactions;
    private final DeadlineStore deadlines;
    private final Clock clock;
    private final AggregateDefinition<ProcessInstance<S>> definition;

    /** Where one event class comes from, which instance it goes to, and how the instance reacts. */
    private record Route<S>(
            MaterializedNamedAggregate source,
            Class<?> eventType,
            Function<Object, @Nullable String> association,
            ProcessReaction<S, Object> reaction,
            boolean starts) {}

    private ProcessManager(Builder<S> builder, DeadlineStore deadlines, Clock clock) {
        this.name = builder.name;
        this.type = builder.type;
        this.stateType = builder.stateType;
        this.initialState = builder.initialState;
        this.routes = Map.copyOf(builder.routes);
        this.deadlineReactions = Map.copyOf(builder.deadlineReactions);
        this.deadlines = deadlines;
        this.clock = clock;
        this.definition = define();
    }

    /**
     * Starts a process manager named {@code name} (its saga's name and consumer group), whose instances are aggregates
     * of {@code type} that start in {@code initialState.apply(key)}.
     */
    public static <S> Builder<S> builder(
            String name, NamedAggregate type, Class<S> stateType, Function<String, S> initialState) {
        return new Builder<>(name, type, stateType, initialState);
    }

    public String name() {
        return name;
    }

    /** The aggregate type of the instances. */
    public MaterializedNamedAggregate type() {
        return type;
    }

    /** The instance of business key {@code key}, in the default tenant. */
    public AggregateId instance(String key) {
        return AggregateId.of(type, key);
    }

    /**
     * The business key of the instance {@code event} goes to, or {@code null} when this manager does not route events
     * of its class (or the association found none): what the saga does, for tests and tools.
     */
    public @Nullable String associate(Object event) {
        Objects.requireNonNull(event, "event");
        for (Route<S> route : routes.values()) {
            if (route.eventType().isInstance(event)) {
                return route.association().apply(event);
            }
        }
        return null;
    }

    /** The names of the deadlines it has reactions for. */
    public Set<String> deadlineNames() {
        return deadlineReactions.keySet();
    }

    /**
     * Where its instances schedule their deadlines: a {@link dev.lanes.deadline.DeadlineRunner} over this store fires
     * them ({@code Lanes.Builder#deadlines(DeadlineStore)}).
     */
    public DeadlineStore deadlineStore() {
        return deadlines;
    }

    /** The instances as an aggregate type: register it with {@code Lanes.Builder#aggregate}. */
    public AggregateDefinition<ProcessInstance<S>> definition() {
        return definition;
    }

    /**
     * The saga that routes the declared events to their instances and carries out what the instances recorded:
     * register it with {@code Lanes.Builder#processor(Function)} ({@code orders::processor}).
     */
    public EventProcessor processor(CommandGateway gateway) {
        EventProcessor.SagaBuilder saga = EventProcessor.saga(name, gateway);
        for (Route<S> route : routes.values()) {
            saga.on(route.source(), route.eventType(), (event, context) -> route(route, event, context));
        }
        saga.on(type, ProcessEvent.CommandIssued.class, (issued, context) -> {
            context.send(issued.target(), commandAfter(context.event()));
            return Mono.empty();
        });
        saga.on(
                type,
                ProcessEvent.DeadlineScheduled.class,
                (scheduled, context) -> deadlines.schedule(new Deadline(
                        scheduled.deadlineId(),
                        context.event().aggregateId(),
                        scheduled.name(),
                        scheduled.dueAt(),
                        new ProcessDeadline(scheduled.deadlineId(), scheduled.name(), scheduled.dueAt()))));
        saga.on(
                type,
                ProcessEvent.DeadlineCancelled.class,
                (cancelled, context) -> deadlines.remove(cancelled.deadlineId()).then());
        saga.onReply(Object.class, (reply, context) -> {
            Throwable error = reply.error();
            return error == null ? Mono.empty() : Mono.error(error); // retried by the saga's lane, then parked
        });
        return saga.build();
    }

    private Mono<Void> route(Route<S> route, Object event, SagaContext context) {
        String key = route.association().apply(event);
        if (key == null || key.isBlank()) {
            return Mono.error(new IllegalArgumentException("Process manager " + name + " found no business key in "
                    + event + " (" + context.event().eventKey() + " of "
                    + context.event().aggregateId() + ")"));
        }
        context.send(AggregateId.of(type, key, context.event().aggregateId().tenantId()), event);
        return Mono.empty();
    }

    /** The command a {@link ProcessEvent.CommandIssued} announces: the next event of its stream. */
    private Object commandAfter(EventContext issued) {
        List<DomainEvent> events = issued.stream().events();
        int at = events.indexOf(issued.event());
        if (at < 0 || at + 1 >= events.size()) {
            throw new IllegalStateException("Process manager " + name + ": " + issued.eventKey() + " of "
                    + issued.aggregateId() + " announces a command but the stream ends there");
        }
        return events.get(at + 1).payload();
    }

    private AggregateDefinition<ProcessInstance<S>> define() {
        AggregateDefinition.Builder<ProcessInstance<S>> builder =
                AggregateDefinition.builder(type, id -> ProcessInstance.initial(id.id(), initialState.apply(id.id())));
        for (Route<S> route : routes.values()) {
            builder.handle(route.eventType(), (instance, event) -> react(instance, event, route));
        }
        builder.handle(ProcessDeadline.class, this::reached)
                .apply(ProcessEvent.CommandIssued.class, (instance, issued) -> instance.withCommandNext(true))
                .apply(
                        ProcessEvent.DeadlineScheduled.class,
                        (instance, scheduled) -> instance.withDeadline(scheduled.name(), scheduled.deadlineId()))
                .apply(
                        ProcessEvent.DeadlineCancelled.class,
                        (instance, cancelled) -> instance.withoutDeadline(cancelled.name(), cancelled.deadlineId()))
                .apply(
                        ProcessEvent.DeadlineReached.class,
                        (instance, reached) -> instance.withoutDeadline(reached.name(), reached.deadlineId()))
                .apply(ProcessEvent.Ended.class, (instance, ended) -> instance.asEnded())
                .apply(Object.class, this::stateOrCommand);
        return builder.build();
    }

    private ProcessInstance<S> stateOrCommand(ProcessInstance<S> instance, Object event) {
        if (instance.commandNext()) {
            return instance.withCommandNext(false);
        }
        if (!stateType.isInstance(event)) {
            throw new IllegalStateException("Process manager " + name + " instance " + instance.key() + " holds a "
                    + event.getClass().getName() + " where its state (" + stateType.getName() + ") belongs");
        }
        return instance.withState(stateType.cast(event));
    }

    private List<?> react(ProcessInstance<S> instance, Object event, Route<S> route) {
        if (instance.ended() || (!instance.started() && !route.starts())) {
            return List.of(); // an ended instance, or one that never started: nothing to do, nothing stored
        }
        return step(instance, event, route.reaction(), null);
    }

    private List<?> reached(ProcessInstance<S> instance, ProcessDeadline deadline) {
        if (instance.ended()
                || !deadline.deadlineId().equals(instance.deadlines().get(deadline.name()))) {
            return List.of(); // cancelled, replaced, or already reached: a stale firing
        }
        ProcessReaction<S, ProcessDeadline> reaction = deadlineReactions.get(deadline.name());
        if (reaction == null) {
            throw new IllegalStateException("Process manager " + name + " has no reaction for deadline '"
                    + deadline.name() + "' (it has " + deadlineReactions.keySet() + ")");
        }
        return step(
                instance.withoutDeadline(deadline.name(), deadline.deadlineId()),
                deadline,
                reaction,
                new ProcessEvent.DeadlineReached(deadline.deadlineId(), deadline.name()));
    }

    @SuppressWarnings("unchecked")
    private <I> List<?> step(
            ProcessInstance<S> instance,
            I input,
            ProcessReaction<S, ? super I> reaction,
            ProcessEvent.@Nullable DeadlineReached reached) {
        ProcessContext context = new ProcessContext(
                name,
                AggregateId.of(type, instance.key()),
                clock.instant(),
                instance.handled() + 1,
                instance.deadlines(),
                deadlineReactions.keySet());
        S next = reaction.react(instance.state(), input, context);
        if (!stateType.isInstance(next)) {
            throw new IllegalStateException("The reaction of process manager " + name + " to "
                    + input.getClass().getName() + " returned " + next + ", not a " + stateType.getName());
        }
        List<Object> events = new ArrayList<>();
        if (reached != null) {
            events.add(reached);
        }
        events.add(next);
        events.addAll(context.recorded());
        return events;
    }

    @Override
    public String toString() {
        return "ProcessManager[" + name + ", " + type + ", starts on "
                + routes.values().stream()
                        .filter(Route::starts)
                        .map(route -> route.eventType().getSimpleName())
                        .toList()
                + "]";
    }

    /**
     * Declares the events, their associations and reactions, and the deadlines. An event class has one route; a
     * deadline name one reaction.
     */
    public static final class Builder<S> {
        private final String name;
        private final MaterializedNamedAggregate type;
        private final Class<S> stateType;
        private final Function<String, S> initialState;
        private final Map<Class<?>, Route<S>> routes = new LinkedHashMap<>();
        private final Map<String, ProcessReaction<S, ProcessDeadline>> deadlineReactions = new LinkedHashMap<>();
        private @Nullable DeadlineStore deadlines;
        private Clock clock = Clock.systemUTC();

        private Builder(String name, NamedAggregate type, Class<S> stateType, Function<String, S> initialState) {
            this.name = Require.notBlank(name, "name");
            this.type = Objects.requireNonNull(type, "type").materialize();
            this.stateType = Objects.requireNonNull(stateType, "stateType");
            this.initialState = Objects.requireNonNull(initialState, "initialState");
        }

        /** {@code eventType} events of {@code source} start the instance {@code association} names (or continue it). */
        public <E> Builder<S> startOn(
                NamedAggregate source,
                Class<E> eventType,
                Function<? super E, @Nullable String> association,
                ProcessReaction<S, ? super E> reaction) {
            return route(source, eventType, association, reaction, true);
        }

        /** {@code eventType} events of {@code source} go to the started instance {@code association} names. */
        public <E> Builder<S> on(
                NamedAggregate source,
                Class<E> eventType,
                Function<? super E, @Nullable String> association,
                ProcessReaction<S, ? super E> reaction) {
            return route(source, eventType, association, reaction, false);
        }

        /** How an instance reacts when its deadline {@code name} is reached. */
        public Builder<S> onDeadline(String name, ProcessReaction<S, ProcessDeadline> reaction) {
            Require.notBlank(name, "name");
            Objects.requireNonNull(reaction, "reaction");
            if (deadlineReactions.putIfAbsent(name, reaction) != null) {
                throw new IllegalArgumentException(
                        "Process manager " + this.name + " already has a reaction for deadline '" + name + "'");
            }
            return this;
        }

        /** Where the instances' deadlines are kept, and the clock their delays count from (required). */
        public Builder<S> deadlines(DeadlineStore store, Clock clock) {
            this.deadlines = Objects.requireNonNull(store, "store");
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        @SuppressWarnings("unchecked")
        private <E> Builder<S> route(
                NamedAggregate source,
                Class<E> eventType,
                Function<? super E, @Nullable String> association,
                ProcessReaction<S, ? super E> reaction,
                boolean starts) {
            Objects.requireNonNull(eventType, "eventType");
            Objects.requireNonNull(association, "association");
            Objects.requireNonNull(reaction, "reaction");
            if (eventType == ProcessDeadline.class || ProcessEvent.class.isAssignableFrom(eventType)) {
                throw new IllegalArgumentException(
                        "Process manager " + name + " cannot route " + eventType.getName() + ": it is its own input");
            }
            Route<S> route = new Route<>(
                    Objects.requireNonNull(source, "source").materialize(),
                    eventType,
                    event -> association.apply(eventType.cast(event)),
                    (ProcessReaction<S, Object>) reaction,
                    starts);
            if (routes.putIfAbsent(eventType, route) != null) {
                throw new IllegalArgumentException(
                        "Process manager " + name + " already routes " + eventType.getName());
            }
            return this;
        }

        /**
         * @throws IllegalStateException naming the process manager when it starts on no event or has no deadline store
         */
        public ProcessManager<S> build() {
            if (routes.values().stream().noneMatch(Route::starts)) {
                throw new IllegalStateException(
                        "Process manager " + name + " starts on no event: declare one with" + " startOn");
            }
            DeadlineStore store = deadlines;
            if (store == null) {
                throw new IllegalStateException(
                        "Process manager " + name + " has no deadline store: set one with deadlines(store, clock)");
            }
            return new ProcessManager<>(this, store, clock);
        }
    }
}
