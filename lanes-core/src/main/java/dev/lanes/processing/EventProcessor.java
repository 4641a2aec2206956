package dev.lanes.processing;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandGateway;
import dev.lanes.dispatch.RetryPolicy;
import dev.lanes.internal.Immediate;
import dev.lanes.internal.Require;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.messaging.EventContext;
import dev.lanes.processing.saga.Saga;
import dev.lanes.processing.saga.SagaBatch;
import dev.lanes.processing.saga.SagaContext;
import dev.lanes.processing.saga.SagaFunction;
import dev.lanes.processing.saga.SagaOutbox;
import dev.lanes.processing.saga.SagaReply;
import dev.lanes.processing.saga.SagaReplyFunction;
import dev.lanes.tracing.MessageTracing;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A named group of event functions; the name is its consumer group on the bus.
 *
 * <p>Semantics of one stream: its events are handled one after another, in sequence order. For one event, every
 * function registered for its class or a supertype runs, <em>concurrently</em>, and all of them finish before the next
 * event (and the lane's next stream) starts. There is no order among them, whatever the registration order. If any
 * fails, the others still finish, then the stream is retried as a whole by the lane (so functions that succeeded run
 * again: they must be idempotent), and parked when retries are exhausted.
 *
 * <p>A saga ({@link #saga}) also receives the outcomes of the commands it sent, as {@link SagaReply replies} in the lane
 * of the aggregate whose event caused them; its functions never wait for a command.
 */
public final class EventProcessor {
    private final String name;
    private final ProcessorKind kind;
    private final Map<MaterializedNamedAggregate, List<Registration>> registrations;
    private final ConcurrentHashMap<ResolvedKey, List<Registration>> resolved = new ConcurrentHashMap<>();
    private final @Nullable Saga saga;

    /** How one registered function is called; a saga's gets the batch its sends are recorded in. */
    @FunctionalInterface
    private interface Invocation {
        Mono<Void> invoke(Object event, EventContext context, @Nullable SagaBatch batch);
    }

    private record Registration(Class<?> eventType, Invocation function) {}

    private record ResolvedKey(MaterializedNamedAggregate type, Class<?> eventClass) {}

    private EventProcessor(
            String name,
            ProcessorKind kind,
            Map<MaterializedNamedAggregate, List<Registration>> registrations,
            @Nullable Saga saga) {
        this.name = name;
        this.kind = kind;
        this.registrations = Map.copyOf(registrations);
        this.saga = saga;
    }

    /** A processor of plain functions: handlers, projections or snapshotters. */
    public static Builder builder(String name, ProcessorKind kind) {
        return new Builder(name, kind);
    }

    /** A saga: its functions record commands, sent through {@code gateway} outside its lanes (see {@link SagaContext}). */
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

    /**
     * Handles one stream: events in order; per event, all its functions concurrently. A saga's recorded commands are
     * handed to its outbox once the whole stream succeeded.
     */
    public Mono<Void> handle(DomainEventStream stream) {
        return Mono.defer(() -> handleNow(stream));
    }

    /*
     * handleNow runs the functions at once, when called: the lane engine calls its handler when the message's turn
     * comes. A function whose Mono is a Callable (Mono.empty, fromRunnable, error: what most projection and saga
     * functions return) is taken with a plain call, as the command side does; from the first one that is not, the rest
     * of the stream goes through Reactor, in order. The outcome is the same either way. What it returns is Mono.empty()
     * or Mono.error(..) (both Callable) when every function answered at once.
     */

    /** As {@link #handle}, running at once what answers at once (see above). */
    Mono<Void> handleNow(DomainEventStream stream) {
        return new StreamRun(stream).handle();
    }

    /** One stream's events, in order: handled at once while their functions answer at once, then through Reactor. */
    private final class StreamRun implements Immediate.Continuation<StreamRun, Integer, Mono<Void>> {
        /** What {@link #ended} answers when an event's functions succeeded at once: go on with the next event here. */
        private static final Mono<Void> NEXT = Mono.empty();

        private final DomainEventStream stream;
        private final List<DomainEvent> events;
        private final MaterializedNamedAggregate type;
        private final @Nullable SagaBatch batch = saga == null ? null : new SagaBatch(); // only a saga's record sends

        StreamRun(DomainEventStream stream) {
            this.stream = stream;
            this.events = stream.events();
            this.type = stream.aggregateId().materialize();
        }

        Mono<Void> handle() {
            for (int i = 0; i < events.size(); i++) {
                Mono<Void> after = Immediate.then(handleEvent(stream, events.get(i), type, batch), this, i + 1, this);
                if (after != NEXT) {
                    return after; // failed at once, or going on through Reactor
                }
            }
            return sendRecorded(batch);
        }

        @Override
        public Mono<Void> ended(StreamRun run, Integer next, @Nullable Throwable failed) {
            return failed == null ? NEXT : Mono.error(failed);
        }

        /** From the first event whose functions did not answer at once, the rest of the stream goes through Reactor. */
        @Override
        public Mono<Void> running(StreamRun run, Integer next, Mono<?> handling) {
            Mono<Void> all = handling.then(Flux.fromIterable(events.subList(next, events.size()))
                    .concatMap(event -> handleEvent(stream, event, type, batch))
                    .then());
            return saga == null ? all : all.then(Mono.defer(() -> sendRecorded(batch)));
        }
    }

    /** For a saga, sends what the stream's functions recorded, now that they all succeeded; at once. */
    private Mono<Void> sendRecorded(@Nullable SagaBatch batch) {
        Saga current = saga;
        return current == null || batch == null ? Mono.empty() : current.sendNow(batch);
    }

    /**
     * For a saga: handles the outcome of a command it sent, as its lane does (the reply functions of the command's type,
     * concurrently; then what they recorded is sent). Errors with {@link IllegalArgumentException} for other processors.
     */
    public Mono<Void> handle(SagaReply<?> reply) {
        Objects.requireNonNull(reply, "reply");
        return Mono.defer(() -> handleMessage(reply));
    }

    /**
     * Handles a stream or, for a saga, a reply. Its functions run when this is called (see {@link #handleNow}): for a
     * lane's handler, whose turn it is; anyone else defers the call to the subscription.
     */
    Mono<Void> handleMessage(Object message) {
        if (message instanceof DomainEventStream stream) {
            return handleNow(stream);
        }
        Saga current = saga;
        if (current != null && message instanceof SagaReply<?> reply) {
            return current.handleNow(reply);
        }
        return Mono.error(new IllegalArgumentException(this + " cannot handle " + message));
    }

    /** The saga's outbox, or {@code null} for other processors. */
    @Nullable
    SagaOutbox outbox() {
        Saga current = saga;
        return current == null ? null : current.outbox();
    }

    private Mono<Void> handleEvent(
            DomainEventStream stream, DomainEvent event, MaterializedNamedAggregate type, @Nullable SagaBatch batch) {
        List<Registration> functions =
                resolved.computeIfAbsent(new ResolvedKey(type, event.payload().getClass()), this::matching);
        if (functions.isEmpty()) {
            return Mono.empty();
        }
        EventContext context = new EventContext(stream, event);
        if (functions.size() == 1) {
            return invoke(functions.get(0), event, context, batch);
        }
        return Flux.fromIterable(functions)
                .flatMapDelayError(registration -> invoke(registration, event, context, batch), functions.size(), 1)
                .then();
    }

    private List<Registration> matching(ResolvedKey key) {
        return registrations.getOrDefault(key.type(), List.of()).stream()
                .filter(registration -> registration.eventType().isAssignableFrom(key.eventClass()))
                .toList();
    }

    /** Calls the function now; what it throws comes back as the error of the returned Mono. */
    private static Mono<Void> invoke(
            Registration registration, DomainEvent event, EventContext context, @Nullable SagaBatch batch) {
        try {
            return Objects.requireNonNull(
                    registration.function().invoke(event.payload(), context, batch), "event function returned null");
        } catch (Throwable failed) {
            Exceptions.throwIfJvmFatal(failed);
            return Mono.error(failed);
        }
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
            Objects.requireNonNull(function, "function");
            EventFunction<Object> plain = (EventFunction<Object>) function;
            return register(namedAggregate, eventType, (event, context, batch) -> plain.handle(event, context));
        }

        private Builder register(NamedAggregate namedAggregate, Class<?> eventType, Invocation function) {
            Objects.requireNonNull(eventType, "eventType");
            registrations
                    .computeIfAbsent(namedAggregate.materialize(), type -> new ArrayList<>())
                    .add(new Registration(eventType, function));
            return this;
        }

        public EventProcessor build() {
            return build(null);
        }

        private EventProcessor build(@Nullable Saga saga) {
            if (registrations.isEmpty()) {
                throw new IllegalStateException("Event processor " + name + " has no event function");
            }
            return new EventProcessor(name, kind, registrations, saga);
        }
    }

    /**
     * Registers saga functions and reply functions. Defaults: at most {@value #DEFAULT_MAX_PENDING} commands pending;
     * transient failures of a command (a full lane, a timed-out wait) sent again with the same request id up to 20
     * times, 10 ms doubling to 1 s, on Reactor's parallel scheduler.
     */
    public static final class SagaBuilder {
        /** Commands a saga may have pending (sent, reply not yet handled) before it pauses its intake. */
        public static final int DEFAULT_MAX_PENDING = 1024;

        /** Transient failures, resent with the same request id: 20 times, 10 ms doubling to 1 s, jitter 0.5. */
        public static final RetryPolicy DEFAULT_COMMAND_RETRIES = RetryPolicy.DEFAULT
                .withMaxRetries(20)
                .withBackoff(Duration.ofMillis(10), Duration.ofSeconds(1))
                .withRetryable(SagaOutbox::transientFailure);

        private final Builder delegate;
        private final CommandGateway gateway;
        private final List<Saga.ReplyRegistration> replies = new ArrayList<>();
        private int maxPending = DEFAULT_MAX_PENDING;
        private RetryPolicy commandRetries = DEFAULT_COMMAND_RETRIES;
        private Scheduler timer = Schedulers.parallel();
        private Set<String> propagatedHeaders = MessageTracing.TRACE_CONTEXT_HEADERS;

        private SagaBuilder(String name, CommandGateway gateway) {
            this.delegate = new Builder(name, ProcessorKind.SAGA);
            this.gateway = Objects.requireNonNull(gateway, "gateway");
        }

        /** Runs {@code function} for every event of {@code namedAggregate} that is an {@code eventType}. */
        @SuppressWarnings("unchecked")
        public <E> SagaBuilder on(NamedAggregate namedAggregate, Class<E> eventType, SagaFunction<? super E> function) {
            Objects.requireNonNull(function, "function");
            SagaFunction<Object> saga = (SagaFunction<Object>) function;
            String name = delegate.name;
            delegate.register(
                    namedAggregate,
                    eventType,
                    (event, context, batch) -> saga.handle(
                            event,
                            new SagaContext(
                                    context,
                                    name,
                                    "saga:" + name + ":" + context.eventKey(),
                                    Objects.requireNonNull(batch, "batch"))));
            return this;
        }

        /** Runs {@code function} for the outcome of every command of type {@code commandType} this saga sent. */
        public <C> SagaBuilder onReply(Class<C> commandType, SagaReplyFunction<? super C> function) {
            replies.add(Saga.ReplyRegistration.of(commandType, function));
            return this;
        }

        /**
         * Commands this saga may have pending before it stops taking event streams (until replies bring it back to
         * half).
         *
         * @throws IllegalArgumentException naming the value if not positive
         */
        public SagaBuilder maxPendingCommands(int maxPending) {
            this.maxPending = Require.positive(maxPending, "maxPendingCommands");
            return this;
        }

        /** How transient failures of a command are retried (same request id), and where the backoff is timed. */
        public SagaBuilder commandRetries(RetryPolicy retries, Scheduler timer) {
            this.commandRetries = Objects.requireNonNull(retries, "retries");
            this.timer = Objects.requireNonNull(timer, "timer");
            return this;
        }

        /**
         * The headers of an event's stream that the commands this saga sends for it carry on (for example a tenant): an
         * allow-list, which always holds the W3C trace-context headers ({@link MessageTracing#TRACE_CONTEXT_HEADERS}:
         * {@code traceparent}, {@code tracestate}), and only them unless set. Every command also carries the stream's
         * correlation id ({@link dev.lanes.messaging.CommandMessage#CORRELATION_HEADER}) and names the event that caused
         * it ({@link dev.lanes.messaging.CommandMessage#CAUSE_HEADER}); headers not on the list stay behind.
         *
         * @throws IllegalArgumentException naming the header if one is blank
         */
        public SagaBuilder propagateHeaders(String... names) {
            Set<String> checked = new LinkedHashSet<>(MessageTracing.TRACE_CONTEXT_HEADERS);
            for (String header : names) {
                checked.add(Require.notBlank(header, "header"));
            }
            this.propagatedHeaders = Set.copyOf(checked);
            return this;
        }

        public EventProcessor build() {
            String name = delegate.name;
            SagaOutbox outbox = new SagaOutbox(name, gateway, maxPending, commandRetries, timer, propagatedHeaders);
            return delegate.build(new Saga(name, outbox, replies));
        }
    }
}
