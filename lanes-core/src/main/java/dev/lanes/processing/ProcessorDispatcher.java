package dev.lanes.processing;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.command.ProjectionListener;
import dev.lanes.command.StageNotReachedException.Reason;
import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.dispatch.ExchangeHandler;
import dev.lanes.dispatch.HandlerTimeoutException;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.dispatch.ParkingLot;
import dev.lanes.event.DomainEventBus;
import dev.lanes.eventsourcing.PayloadCodecException;
import dev.lanes.eventsourcing.UndecodedPayload;
import dev.lanes.flow.IntakeGate;
import dev.lanes.internal.Immediate;
import dev.lanes.internal.Internal;
import dev.lanes.internal.route.BacklogRoute;
import dev.lanes.lifecycle.GroupedComponent;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.deadletter.AttemptedStream;
import dev.lanes.processing.deadletter.DeadLetter;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterSequencer;
import dev.lanes.processing.deadletter.DeadLetters;
import dev.lanes.processing.deadletter.RetryOutcome;
import dev.lanes.processing.deadletter.SequenceOperation;
import dev.lanes.processing.saga.AttemptedReply;
import dev.lanes.processing.saga.ParkedReply;
import dev.lanes.processing.saga.SagaOutbox;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.tracing.MessageTracing;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * One processor at run time: one lane engine per aggregate type it receives, on a borrowed scheduler supplier (its own
 * stop and force never release the shared schedulers). A projection reports each handled (or parked) stream to its
 * {@link ProjectionListener}, which completes {@code PROJECTED} waits, and its stop, which ends the waits it will not
 * complete.
 *
 * <p>Streams go through the processor's {@link DeadLetterSequencer} in their lane: a stream whose aggregate has a parked
 * sequence is parked behind it, and one whose retries run out starts a sequence. Retries and skips of a sequence
 * ({@link #operate}) reach the same lanes through a route of their own, so they are ordered with the streams. A
 * saga's replies go through the sequencer too ({@link DeadLetterSequencer#handleReply}): one whose handling fails for
 * good is parked in its cause aggregate's sequence, durably with a durable queue, instead of the lane's parking lot.
 *
 * <p>A saga's lanes take two kinds of message: event streams from the bus, admitted through the saga's intake gate
 * (closed while its pending commands are at their budget), and replies to its commands, always admitted (they are what
 * brings the pending commands down), each in the lane of the aggregate whose event caused the command.
 */
@Internal
public final class ProcessorDispatcher implements GroupedComponent {
    /** How often a parking the dead-letter queue failed is tried again, in the lane (see {@link DeadLetterSequencer}). */
    static final Duration PARKING_RETRY_INTERVAL = Duration.ofSeconds(1);

    private final EventProcessor processor;
    private final MessageTracing tracing;
    private final @Nullable ProjectionListener projection;
    private final @Nullable SagaOutbox outbox;
    private final DeadLetterSequencer sequencer;
    private final List<AggregateDispatcher<Object>> dispatchers;
    private final Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> operations;
    /** Held until {@link #start()}: prepare subscribes to the bus without demand. */
    private final IntakeGate started;

    private final RuntimeComponent group;

    ProcessorDispatcher(
            EventProcessor processor,
            DomainEventBus eventBus,
            AggregateSchedulerSupplier borrowed,
            LaneSettings settings,
            ParkingLot parkingLot,
            DeadLetterQueue deadLetters,
            DispatcherMetrics metrics,
            MessageTracing tracing,
            @Nullable ProjectionListener projection) {
        this.processor = processor;
        this.tracing = tracing;
        this.projection = projection;
        this.outbox = processor.outbox();
        this.started = new IntakeGate(processor.name() + " start");
        started.hold();
        this.sequencer = new DeadLetterSequencer(
                processor.name(),
                deadLetters,
                DeadLetterSequencer.Storing.untilStored(
                        processor.name(), deadLetters, PARKING_RETRY_INTERVAL, Schedulers.parallel()),
                settings.retryPolicy(),
                Clock.systemUTC(),
                this::deliver,
                this::replay,
                this::parked);
        ParkingLot reportingParkingLot = parked -> {
            parkingLot.park(parked);
            if (parked.message() instanceof DomainEventStream stream) {
                parked(stream, parked.error());
            }
        };
        Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> replies = new HashMap<>();
        Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> operations = new HashMap<>();
        this.dispatchers = processor.aggregateTypes().stream()
                .map(type -> AggregateDispatcher.<Object>builder(processor.name(), type)
                        .source(source(eventBus, type, replies, operations))
                        .handler(new Handler())
                        .schedulers(borrowed)
                        .settings(settings)
                        .parkingLot(reportingParkingLot)
                        .metrics(metrics)
                        .build())
                .toList();
        this.operations = Map.copyOf(operations);
        if (outbox != null) {
            Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> routes = Map.copyOf(replies);
            outbox.bind(reply -> {
                BacklogRoute<MessageExchange<Object>> route =
                        routes.get(reply.aggregateId().materialize());
                if (route == null || !route.offer(new AttemptedReply(reply))) {
                    reply.reject(new IllegalStateException(this + " takes no replies for " + reply.aggregateId()));
                }
            });
        }
        this.group = RuntimeComponent.group(processor.name(), dispatchers, borrowed);
    }

    /**
     * Runs a retry or skip of one parked sequence in its aggregate's lane; see {@link DeadLetters}. Errors with {@link
     * IllegalArgumentException} if this processor receives no streams of the aggregate's type.
     */
    Mono<RetryOutcome> operate(AggregateId aggregateId, SequenceOperation.Kind kind) {
        return Mono.defer(() -> {
            BacklogRoute<MessageExchange<Object>> route = operations.get(aggregateId.materialize());
            if (route == null) {
                return Mono.error(new IllegalArgumentException(processor.name() + " receives no streams of "
                        + aggregateId.materialize() + " (it receives " + processor.aggregateTypes() + ")"));
            }
            SequenceOperation operation = new SequenceOperation(processor.name(), aggregateId, kind);
            if (!route.offer(operation)) {
                operation.reject(new IllegalStateException(this + " is stopped"));
            }
            return operation.result();
        });
    }

    /**
     * The bus's streams of {@code type}, each counting its attempts, merged with the retries and skips of its parked
     * sequences and, for a saga, the replies to its commands.
     */
    private Flux<MessageExchange<Object>> source(
            DomainEventBus eventBus,
            MaterializedNamedAggregate type,
            Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> replies,
            Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> operations) {
        Flux<MessageExchange<Object>> streams =
                Flux.defer(() -> eventBus.receive(processor.name(), type)).map(AttemptedStream::new);
        // the merge below requests ahead at subscription: the bus sees demand only once this processor started
        Flux<MessageExchange<Object>> startedStreams = started.admit(streams);
        BacklogRoute<MessageExchange<Object>> operationRoute = new BacklogRoute<>(
                null, held -> held.reject(new IllegalStateException(this + " stopped before running " + held)));
        operations.put(type, operationRoute);
        SagaOutbox sagaOutbox = outbox;
        if (sagaOutbox == null) {
            return Flux.merge(operationRoute.flux(), startedStreams);
        }
        BacklogRoute<MessageExchange<Object>> route = new BacklogRoute<>(
                null, held -> held.reject(new IllegalStateException(this + " stopped before taking " + held)));
        replies.put(type, route);
        // prefetch 1: at most one stream in hand-over when the gate closes
        return Flux.merge(
                1, operationRoute.flux(), route.flux(), sagaOutbox.gate().admit(startedStreams));
    }

    private Mono<Void> dispatch(MessageExchange<Object> exchange) {
        if (exchange instanceof AttemptedStream stream) {
            return sequencer.handle(stream);
        }
        if (exchange instanceof SequenceOperation operation) {
            return sequencer.run(operation);
        }
        if (exchange instanceof AttemptedReply reply) {
            return sequencer.handleReply(reply);
        }
        return deliver(exchange.message());
    }

    /** Dispatches each exchange; a stream whose attempt timed out goes through the sequencer like a failed one. */
    private final class Handler implements ExchangeHandler<Object> {
        @Override
        public Mono<Void> handle(MessageExchange<Object> exchange) {
            return dispatch(exchange);
        }

        @Override
        public Mono<Void> timedOut(MessageExchange<Object> exchange, HandlerTimeoutException timeout) {
            if (exchange instanceof AttemptedStream stream) {
                return sequencer.timedOut(stream, timeout);
            }
            return exchange instanceof AttemptedReply reply ? sequencer.timedOut(reply, timeout) : Mono.error(timeout);
        }
    }

    /**
     * Delivers a saga's reply letter again: its command is sent again with its request id (answered from the command
     * side's store if it was stored, run if it never was), transient failures retried as the outbox retries them, and
     * the outcome goes to the reply functions. The retry holds the lane meanwhile (it waits for the command's outcome),
     * so it keeps the reply before the aggregate's later letters.
     */
    private Mono<Void> replay(DeadLetter letter) {
        ParkedReply parked = letter.reply();
        SagaOutbox sagaOutbox = outbox;
        if (parked == null || sagaOutbox == null) {
            return Mono.error(
                    new IllegalStateException(this + " cannot deliver " + letter + ": it is not a saga's reply"));
        }
        if (parked.command() instanceof UndecodedPayload undecoded) {
            return Mono.error(new IllegalStateException(this + " cannot send the command of " + letter
                    + " again: its dead-letter queue could not decode it (" + undecoded + ")"));
        }
        return Mono.defer(() -> sagaOutbox.resend(new SagaOutbox.Intent(
                        parked.sagaCommand(), parked.cause(letter.requireStream()), processor.name())))
                .flatMap(processor::handleMessage);
    }

    /** A parked stream will not be projected (yet): its senders' {@code PROJECTED} waits end with why. */
    private void parked(DomainEventStream stream, Throwable error) {
        if (projection != null) {
            projection.failed(stream.commandId(), error);
        }
    }

    /**
     * Runs the message's functions now (the lane's turn came), then tells the projection's senders. A stream holding an
     * event its bus could not decode ({@link UndecodedPayload}) runs none: it fails with the decoding error, so that it
     * is parked and holds its aggregate (whether this processor would have handled that event cannot be known).
     */
    private Mono<Void> deliver(Object message) {
        if (message instanceof DomainEventStream stream) {
            PayloadCodecException undecoded = undecoded(stream);
            if (undecoded != null) {
                return Mono.error(undecoded);
            }
        }
        Mono<Void> handling = TracedHandling.handle(tracing, processor, message);
        ProjectionListener listener = projection;
        if (listener == null || !(message instanceof DomainEventStream stream)) {
            return handling;
        }
        return Immediate.then(handling, listener, stream, PROJECTED); // answered at once: no operators
    }

    /** Tells the projection listener of a stream once its functions succeeded: at once, or when they end. */
    private static final Immediate.Continuation<ProjectionListener, DomainEventStream, Mono<Void>> PROJECTED =
            new Immediate.Continuation<>() {
                @Override
                public Mono<Void> ended(
                        ProjectionListener listener, DomainEventStream stream, @Nullable Throwable failed) {
                    if (failed != null) {
                        return Mono.error(failed);
                    }
                    listener.projected(stream.commandId());
                    return Mono.empty();
                }

                @Override
                public Mono<Void> running(ProjectionListener listener, DomainEventStream stream, Mono<?> handling) {
                    return handling.then(Mono.fromRunnable(() -> listener.projected(stream.commandId())));
                }
            };

    private static @Nullable PayloadCodecException undecoded(DomainEventStream stream) {
        for (DomainEvent event : stream.events()) {
            if (event.payload() instanceof UndecodedPayload undecoded) {
                return undecoded.failure(stream, event.sequence());
            }
        }
        return null;
    }

    EventProcessor processor() {
        return processor;
    }

    List<AggregateDispatcher<Object>> dispatchers() {
        return dispatchers;
    }

    /** Drains the children in reverse order, then stops the owned schedulers (see {@link RuntimeComponent#group}). */
    @Override
    public RuntimeComponent lifecycle() {
        return group;
    }

    /** A saga's outbox takes its leases from the runtime's context. */
    @Override
    public Mono<Void> prepare(RuntimeContext context) {
        if (outbox != null) {
            outbox.prepare(context);
        }
        return group.prepare(context);
    }

    /** Starts the lanes, then relays their demand to the bus. */
    @Override
    public void start() {
        group.start();
        started.release();
    }

    /** Once drained, a projection's remaining {@code PROJECTED} waits end: it will handle nothing more. */
    @Override
    public Mono<Void> stopGracefully() {
        return group.stopGracefully().doFinally(signal -> stopped(Reason.STOPPED));
    }

    /** A saga sends and retries nothing more; a projection's {@code PROJECTED} waits end at once, as forced. */
    @Override
    public void forceStop() {
        if (outbox != null) {
            outbox.stop();
        }
        try {
            group.forceStop();
        } finally {
            stopped(Reason.FORCED);
        }
    }

    private void stopped(Reason reason) {
        if (outbox != null) {
            outbox.stop();
        }
        if (projection != null) {
            projection.stopped(reason);
        }
    }

    @Override
    public String name() {
        return processor.name();
    }

    @Override
    public String toString() {
        return "ProcessorDispatcher[" + processor.name() + "]";
    }
}
