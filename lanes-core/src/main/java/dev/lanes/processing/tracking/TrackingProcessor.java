package dev.lanes.processing.tracking;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.DispatcherMetrics;
import dev.lanes.dispatch.LaneSettings;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.dispatch.ParkedMessage;
import dev.lanes.eventsourcing.CheckpointStore;
import dev.lanes.eventsourcing.EventStore;
import dev.lanes.eventsourcing.PositionedStream;
import dev.lanes.eventsourcing.Segment;
import dev.lanes.eventsourcing.SegmentCheckpoint;
import dev.lanes.internal.Require;
import dev.lanes.internal.route.BacklogRoute;
import dev.lanes.internal.route.LocalExchange;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.CompositeEventDispatcher;
import dev.lanes.processing.EventProcessor;
import dev.lanes.processing.ProcessorKind;
import dev.lanes.processing.TracedHandling;
import dev.lanes.processing.deadletter.AttemptedStream;
import dev.lanes.processing.deadletter.DeadLetterQueue;
import dev.lanes.processing.deadletter.DeadLetterQueues;
import dev.lanes.processing.deadletter.DeadLetterSequencer;
import dev.lanes.processing.deadletter.DeadLetters;
import dev.lanes.processing.deadletter.LaneDeadLetters;
import dev.lanes.processing.deadletter.RetryOutcome;
import dev.lanes.processing.deadletter.RetryRequestPolling;
import dev.lanes.processing.deadletter.SequenceOperation;
import dev.lanes.scheduler.AggregateSchedulerSupplier;
import dev.lanes.scheduler.AggregateSchedulers;
import dev.lanes.tracing.MessageTracing;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * An event processor fed from the event store instead of the bus: it reads the store's global order ({@link
 * EventStore#readAll}) from its checkpoint, catches up, then follows new appends by polling. Use it to add a
 * projection to a running system, or to rebuild one ({@link #reset()}). It does not count for {@code PROJECTED}
 * waits (it may be far behind, catching up): those end when the projections fed by the bus handled the events.
 *
 * <p><b>Reading.</b> It reads only the streams of the processor's aggregate types ({@link EventStore#readAll(long, int,
 * java.util.Set)}), so streams of other types, even ones this application cannot decode, never hold it up. A stream
 * of its own types that the store cannot read (an event class that no longer exists) stops it at that position: the
 * read fails, is logged and retried every poll interval until the type is readable again (register an upcaster).
 *
 * <p><b>Order.</b> Streams go to the processor's lanes (one {@link AggregateDispatcher} per aggregate type, as on the
 * bus) in position order, so an aggregate's streams are handled one at a time in version order, while catching up as
 * while following; different aggregates run concurrently.
 *
 * <p><b>Dead letters.</b> Each stream goes through the same sequenced dead letters as on the bus ({@link DeadLetters}),
 * in the builder's {@link DeadLetterQueue} ({@link DeadLetterQueues#inMemory()} unless set; under {@code Lanes}, the
 * runtime's), keyed by the processor's name: a stream whose aggregate has a parked sequence for this processor is
 * parked behind its head without running; one whose last attempt (by the lane settings' {@link
 * dev.lanes.dispatch.RetryPolicy}) fails becomes the head of a new sequence. {@link #deadLetters()} lists, retries and
 * skips them; a retry runs in the aggregate's lane, ordered with the streams read. Retries requested from outside
 * ({@code lanes parked retry|skip}, {@link DeadLetterQueue#takeRetryRequests}) are taken every {@link
 * Builder#retryRequestPolling} interval by the instance that reads the aggregate's segment (with one segment: the one
 * that holds the claim; with more, each instance takes only the requests of the segments it holds, {@link
 * DeadLetterQueue#takeRetryRequests(Set, Set)}), so the retry runs in the owner's lane, ordered with the streams it
 * reads; a request for a segment nobody reads waits for its next owner. The reading instance also reloads the queue ({@link
 * DeadLetterQueue#reload}) each time it takes a segment, before it reads it: so a restarted instance, or one taking
 * over, parks the aggregate's streams it reads again behind the head another instance parked.
 *
 * <p><b>Checkpoint.</b> A stream is settled when its lane handled it, or once the queue stored it (as a head or behind
 * one): never before. A parking the queue fails is logged and tried again every poll interval, in the aggregate's lane,
 * so its later streams wait behind it while other aggregates go on (up to {@code maxInFlight}); its position stays
 * unsettled until the queue stored it, and if the processor is stopped first (a graceful stop waits for it as for any
 * handler, up to the runtime's deadline) the stream is read again on the next start. Nothing is parked elsewhere: an
 * error that still reaches the lanes' parking lot (a fault) leaves its stream unsettled, stops this processor's reading
 * and is reported to the runtime. The checkpoint is the highest position up to which every stream read is settled
 * (contiguous, as Kafka commits offsets), saved every {@link TrackingSettings#checkpointInterval()} and after a
 * graceful stop. So once the checkpoint passed a parked stream, the queue holds it: keep the queue as long as the
 * checkpoint store ({@code PostgresDeadLetterQueue} with {@code PostgresCheckpointStore}; the in-memory queue with the
 * in-memory store), or a restart forgets what was parked. A restart reads on after the checkpoint: what was settled
 * after the last save, or was in flight at a force stop or a crash, is handled or parked again (at least once: a
 * stream parked again behind its head is a second letter of it). At most {@link TrackingSettings#maxInFlight()}
 * streams are read and not yet settled.
 *
 * <p><b>Segments and claims.</b> The stream is split into {@link TrackingSettings#segments()} {@link Segment segments}
 * by a stable hash of the aggregate id, so an aggregate's streams all fall in one segment and keep their order. Each
 * segment has its own checkpoint and claim in the {@link CheckpointStore}. A coordinating loop, every {@link
 * TrackingSettings#pollInterval()} but at most 4 times a second, beats for this instance ({@link
 * CheckpointStore#heartbeat}), reads the segments' rows and keeps this instance at its fair share, {@code ceil(segments / instances
 * alive)}: it claims segments that nobody holds or whose claim looks expired, and releases the ones above its share
 * (each once every stream it read of it settled). So instances that join take segments over from the others, and the
 * segments of one that dies are taken over once its claims and heartbeat expire (one lease). Each claimed segment is
 * read by a loop of its own, which renews its claim every third of the lease; one that finds its claim lost (it could
 * not renew in time) stops reading that segment and logs a warning; what it had read still settles, but its
 * checkpoint is no longer saved. With one segment, one instance reads and the others wait as standbys. A processor
 * whose checkpoints were saved with another segment count refuses to start (reported to the runtime), naming both.
 *
 * <p><b>Operations.</b> An operator pauses and resumes a segment, or asks for a seek or reset, in the checkpoint
 * store ({@link TrackingOperations}, {@code lanes processors}); the instance that owns the segment sees it at its next
 * tick and acts: a paused segment keeps its claim and reads nothing; a seek runs the reset hook first.
 *
 * <p><b>Threads.</b> Each segment's loop reads, offers to the lanes and saves, one step at a time, on the {@code
 * timer} scheduler; handlers run on the lanes' schedulers. A failed read or save is logged and retried after the poll
 * interval. Sagas are not supported (their commands must not be sent again on a rebuild).
 */
public final class TrackingProcessor implements RuntimeComponent {
    private static final Logger log = LoggerFactory.getLogger(TrackingProcessor.class);

    /** How long the loop waits when {@link TrackingSettings#maxInFlight()} streams are unsettled. */
    static final Duration FULL_BACKOFF = Duration.ofMillis(2);

    /** The shortest interval of the coordinating loop, whatever the poll interval: it reads the store every tick. */
    static final Duration MIN_TICK = Duration.ofMillis(250);

    private final EventProcessor processor;
    private final EventStore store;
    private final CheckpointStore checkpoints;
    private final TrackingSettings settings;
    private final String owner;
    private final Scheduler timer;
    private final Function<Segment, Mono<Void>> onReset;
    private final Clock clock;
    private final Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> routes;
    private final Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> operations;
    private final DeadLetterQueue queue;
    private final DeadLetterSequencer sequencer;
    private final DeadLetters deadLetters;
    private final RetryRequestPolling polling;
    /** Retries and skips offered to the lanes and not yet answered: a reset waits for them, and refuses new ones. */
    private final AtomicInteger operating = new AtomicInteger();

    private final RuntimeComponent group;
    private final TrackingLifecycle lifecycle;

    /** The segments this instance reads, by index; a reader removes itself once it released or lost its claim. */
    private final Map<Integer, SegmentReader> readers = new ConcurrentHashMap<>();
    /** Seeks (and resets) running onReset or waiting for it: retries and skips are refused meanwhile. */
    private final AtomicInteger resetting = new AtomicInteger();
    /** Ticks of the coordinating loop, counted when each begins. */
    private final AtomicLong ticks = new AtomicLong();
    /** Resets asked for through {@link #reset()}, each done once every segment did its seek. Guarded by itself. */
    private final List<ResetWaiter> resetWaiters = new ArrayList<>();
    /** Completes with the segment count once the checkpoint store recorded it. */
    private final Sinks.One<Integer> recorded = Sinks.one();

    // read and written by the coordinating loop only, one tick at a time
    private boolean segmentsRecorded;
    private boolean beaten;
    private long heartbeatAt;
    private int alive = 1;

    private volatile boolean reading;
    private volatile long saved = -1;
    private volatile @Nullable Disposable loop;
    private volatile RuntimeContext context = RuntimeContext.standalone();
    private final MessageTracing tracing;

    /** A {@link #reset()} waiting for the first tick that began after {@code after} to see no seek requested. */
    private record ResetWaiter(long after, Sinks.Empty<Void> done) {}

    /** Callers of {@link #operationsSeen()}: ended by the first tick after theirs that saw the rows. */
    private final List<ResetWaiter> seenWaiters = new ArrayList<>();

    private TrackingProcessor(Builder builder, AggregateSchedulerSupplier schedulers) {
        this.processor = builder.processor;
        this.tracing = builder.tracing;
        this.store = builder.store;
        this.checkpoints = builder.checkpoints;
        this.settings = builder.settings;
        this.owner = builder.owner;
        this.timer = builder.timer;
        this.onReset = builder.onReset;
        this.clock = builder.clock;
        this.lifecycle = new TrackingLifecycle(name());
        this.queue = builder.deadLetterQueue;
        this.sequencer = new DeadLetterSequencer(
                processor.name(),
                queue,
                DeadLetterSequencer.Storing.untilStored(name(), queue, settings.pollInterval(), timer),
                builder.laneSettings.retryPolicy(),
                Clock.systemUTC(),
                message -> TracedHandling.handle(tracing, processor, message),
                DeadLetterSequencer.noReplies(processor.name()),
                (stream, error) -> {});
        Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> byType = new HashMap<>();
        Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> operationsByType = new HashMap<>();
        AggregateSchedulerSupplier borrowed = AggregateSchedulers.borrowed(schedulers);
        List<AggregateDispatcher<Object>> dispatchers = processor.aggregateTypes().stream()
                .map(type -> dispatcher(builder, type, borrowed, byType, operationsByType))
                .toList();
        this.routes = Map.copyOf(byType);
        this.operations = Map.copyOf(operationsByType);
        this.deadLetters = new LaneDeadLetters(name(), queue, Map.of(processor.name(), this::operate));
        this.polling = new RetryRequestPolling(
                name(),
                queue,
                deadLetters,
                Set.of(processor.name()),
                builder.retryPollInterval,
                builder.retryPollTimer != null ? builder.retryPollTimer : timer,
                this::isReading,
                this::heldSegments);
        this.group = RuntimeComponent.group(name(), dispatchers, schedulers);
    }

    /** The lanes of one type: the streams read, merged with the retries and skips of its parked sequences. */
    private AggregateDispatcher<Object> dispatcher(
            Builder builder,
            MaterializedNamedAggregate type,
            AggregateSchedulerSupplier borrowed,
            Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> byType,
            Map<MaterializedNamedAggregate, BacklogRoute<MessageExchange<Object>>> operationsByType) {
        BacklogRoute<MessageExchange<Object>> route = new BacklogRoute<>(null, held -> {});
        BacklogRoute<MessageExchange<Object>> operationRoute = new BacklogRoute<>(
                null, held -> held.reject(new IllegalStateException(name() + " stopped before running " + held)));
        byType.put(type, route);
        operationsByType.put(type, operationRoute);
        return AggregateDispatcher.<Object>builder(name(), type)
                .source(Flux.merge(operationRoute.flux(), route.flux()))
                .handler(this::dispatch)
                .schedulers(borrowed)
                .settings(builder.laneSettings)
                .parkingLot(this::refuseParking)
                .metrics(builder.metrics)
                .build();
    }

    /** In the aggregate's lane: a stream read goes through the dead letters; a retry or skip runs on its sequence. */
    private Mono<Void> dispatch(MessageExchange<Object> exchange) {
        if (exchange instanceof SequenceOperation operation) {
            return sequencer.run(operation);
        }
        return sequencer.handle((AttemptedStream) exchange);
    }

    /**
     * The lanes' parking lot, which the sequencer leaves nothing to (a parking is retried until stored): anything that
     * still gets here is a fault. Throwing makes the lane reject the stream (its position stays unsettled, read again
     * after a restart) and report the fault to the runtime; this processor reads no more.
     */
    private void refuseParking(ParkedMessage parked) {
        stopReading();
        throw new IllegalStateException(name() + " parks streams only in its dead-letter queue " + queue + ", but "
                + parked.aggregateId() + " reached its lanes' parking lot after " + parked.attempts()
                + " attempt(s): " + parked.error() + "; it stays unsettled and " + name() + " stops reading");
    }

    /**
     * Runs a retry or skip of one parked sequence in its aggregate's lane. Errors with {@link IllegalArgumentException}
     * if this processor reads no streams of the aggregate's type, and with {@link IllegalStateException} while a reset
     * is pending (the reset discards the sequences).
     */
    private Mono<RetryOutcome> operate(AggregateId aggregateId, SequenceOperation.Kind kind) {
        return Mono.defer(() -> {
            BacklogRoute<MessageExchange<Object>> route = operations.get(aggregateId.materialize());
            if (route == null) {
                return Mono.error(new IllegalArgumentException(name() + " reads no streams of "
                        + aggregateId.materialize() + " (it reads " + processor.aggregateTypes() + ")"));
            }
            operating.incrementAndGet(); // before the check: a reset that saw no operation sees its pending flag here
            if (resetting.get() > 0) {
                operating.decrementAndGet();
                return Mono.error(new IllegalStateException(name() + " is resetting (its dead letters are discarded):"
                        + " the " + kind + " of " + aggregateId + " is refused"));
            }
            SequenceOperation operation = new SequenceOperation(processor.name(), aggregateId, kind);
            Mono<RetryOutcome> result = operation.result().doFinally(signal -> operating.decrementAndGet());
            result.subscribe(outcome -> {}, error -> {}); // counts the operation until it is answered, not cancelled
            if (!route.offer(operation)) {
                operation.reject(new IllegalStateException(name() + " is stopped"));
            }
            return operation.result();
        });
    }

    /**
     * A tracking processor for {@code processor} (a projection or handler; not a saga), reading {@code store} and
     * keeping its checkpoint and claim in {@code checkpoints} under the processor's name.
     */
    public static Builder builder(EventProcessor processor, EventStore store, CheckpointStore checkpoints) {
        return new Builder(processor, store, checkpoints);
    }

    @Override
    public String name() {
        return "Tracking-" + processor.name();
    }

    /**
     * The last checkpoint this instance saved for segment 0 (with one segment: the processor's checkpoint), or -1
     * before its first save.
     */
    public long savedCheckpoint() {
        return saved;
    }

    /**
     * Pause, resume, reset or seek this processor's segments, and see their owners, checkpoints and lag (see {@link
     * TrackingOperations}): written to the checkpoint store, acted on by whichever instance owns each segment.
     */
    public TrackingOperations operations() {
        return TrackingOperations.of(checkpoints, store, queue);
    }

    /** The processor's own name: its checkpoints' key ({@link #name()} is {@code Tracking-} and this). */
    public String processorName() {
        return processor.name();
    }

    /** How many segments this processor's stream is split into ({@link TrackingSettings#segments()}). */
    public int segments() {
        return settings.segments();
    }

    /** The segments this instance holds the claim of and reads now, in index order. */
    public List<Integer> ownedSegments() {
        return readers.values().stream()
                .filter(SegmentReader::reading)
                .map(reader -> reader.segment.index())
                .sorted()
                .toList();
    }

    private Set<Segment> heldSegments() {
        return ownedSegments().stream()
                .map(index -> new Segment(index, settings.segments()))
                .collect(Collectors.toUnmodifiableSet());
    }

    /**
     * This processor's parked sequences: list them, retry them, skip their head (see {@link DeadLetters}). A retry or
     * skip runs in the aggregate's lane of this instance, ordered with the streams read; one asked for while a {@link
     * #reset()} is pending errors with {@link IllegalStateException}. Under {@code Lanes}, {@code Lanes.deadLetters()}
     * reaches it with the other processors.
     */
    public DeadLetters deadLetters() {
        return deadLetters;
    }

    /** Where this processor parks the streams it could not handle (the builder's {@link Builder#deadLetterQueue}). */
    public DeadLetterQueue deadLetterQueue() {
        return queue;
    }

    /**
     * Whether this instance holds the claim of at least one segment and reads (false for a standby, and after a stop or
     * lost claims).
     */
    public boolean isReading() {
        return reading && !ownedSegments().isEmpty();
    }

    @Override
    public Mono<Void> prepare(RuntimeContext context) {
        return Mono.defer(() -> {
            lifecycle.prepared();
            this.context = context;
            context.whenStopping(this::stopReading);
            return group.prepare(context);
        });
    }

    @Override
    public void start() {
        lifecycle.started();
        if (checkpoints.durable() && !queue.durable()) {
            log.warn(
                    "{} keeps its checkpoint in {} but parks in {}, which is lost with the process: after a restart"
                            + " the checkpoint is past the streams it parked, and they are not delivered again; give it"
                            + " a durable dead-letter queue (PostgresDeadLetterQueue)",
                    name(),
                    checkpoints,
                    queue);
        }
        group.start();
        reading = true;
        polling.start();
        loop = Mono.defer(this::tick)
                .onErrorResume(this::tickFailed)
                .then(Mono.delay(tickInterval(), timer))
                .repeat(() -> reading)
                .subscribe(null, this::loopFailed);
    }

    /**
     * Rebuilds from position 0: asks every segment's owner, through the checkpoint store, to seek to the start ({@link
     * CheckpointStore#requestSeek}), and completes once every segment did. Each owner, once every stream it read of the
     * segment is settled and no retry or skip runs, runs the builder's {@code onReset} action for the segment (clear
     * that part of the projection there), then discards the segment's sequences in the dead-letter queue (they belong
     * to the read model being cleared), saves checkpoint 0 and reads the segment again from the start. So the rebuild
     * parks what still fails again, holding that aggregate's later streams behind it as the first run did, and no
     * letter is left twice. A failed step is logged and tried again from {@code onReset} after the poll interval.
     * Retries and skips asked for while a segment resets error with {@link IllegalStateException}. Errors with {@link
     * IllegalStateException} when the processor is not running, or stops first. A segment that no instance owns resets
     * when one takes it, so the returned {@code Mono} waits for that.
     */
    public Mono<Void> reset() {
        return Mono.defer(() -> {
            lifecycle.requireRunning("reset");
            return recorded.asMono()
                    .flatMapMany(count -> Flux.range(0, count))
                    .concatMap(segment -> checkpoints.requestSeek(processor.name(), segment, 0))
                    .then(Mono.defer(this::awaitSeeks));
        });
    }

    /**
     * Completes once a tick of this instance that began after the call has read the operators' requests (pauses,
     * resumes, seeks: {@link #operations()}, {@code lanes processors}) from the checkpoint store and handed them to its
     * readers: after it, a segment paused before the call is read no more here (a page already being read ends). An
     * operator in this process waits for it to know its request was acted on here. Errors if the processor stops
     * first.
     */
    public Mono<Void> operationsSeen() {
        return Mono.defer(() -> {
            Sinks.Empty<Void> done = Sinks.empty();
            synchronized (resetWaiters) {
                if (!reading) {
                    return Mono.error(new IllegalStateException(name() + " is not reading: no tick will come"));
                }
                seenWaiters.add(new ResetWaiter(ticks.get(), done));
            }
            return done.asMono();
        });
    }

    private Mono<Void> awaitSeeks() {
        Sinks.Empty<Void> done = Sinks.empty();
        synchronized (resetWaiters) {
            if (!reading) {
                return Mono.error(new IllegalStateException(name() + " stopped before its reset was done"));
            }
            resetWaiters.add(new ResetWaiter(ticks.get(), done));
        }
        return done.asMono();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // the coordinating loop: records the segment count, beats, sees what operators asked for, and claims or releases
    // segments for this instance's fair share: ceil(segments / instances alive)

    private Mono<Void> tick() {
        long tick = ticks.incrementAndGet();
        Map<Integer, Long> seeksBefore = new HashMap<>();
        readers.forEach((index, reader) -> seeksBefore.put(index, reader.seeksDone));
        return recordSegments()
                .then(heartbeatIfDue())
                .then(Mono.defer(() -> checkpoints.checkpoints(processor.name())))
                .flatMap(rows -> {
                    see(rows, tick, seeksBefore);
                    return rebalance(rows);
                });
    }

    private Mono<Void> recordSegments() {
        if (segmentsRecorded) {
            return Mono.empty();
        }
        return checkpoints
                .segments(processor.name(), settings.segments())
                .onErrorMap(
                        IllegalStateException.class,
                        refused -> new IllegalStateException(
                                name() + " cannot start with " + settings.segments() + " segment(s): "
                                        + refused.getMessage(),
                                refused))
                .doOnNext(count -> {
                    segmentsRecorded = true;
                    recorded.tryEmitValue(count);
                })
                .then();
    }

    /** The poll interval, but at least {@link #MIN_TICK}. */
    private Duration tickInterval() {
        Duration poll = settings.pollInterval();
        return poll.compareTo(MIN_TICK) < 0 ? MIN_TICK : poll;
    }

    /**
     * Beats every tick (so the count of instances alive, which sets the fair share, is at most a tick old), or every
     * third of the lease when that is shorter.
     */
    private Mono<Void> heartbeatIfDue() {
        long now = now();
        long due = Math.min(tickInterval().toMillis(), settings.lease().toMillis() / 3);
        if (beaten && now - heartbeatAt < due) {
            return Mono.empty();
        }
        return checkpoints
                .heartbeat(processor.name(), owner, settings.lease())
                .doOnNext(count -> {
                    alive = Math.max(1, count);
                    heartbeatAt = now;
                    beaten = true;
                })
                .then();
    }

    /** Hands the operators' pauses and seek requests to the readers, and ends the resets every segment did. */
    private void see(List<SegmentCheckpoint> rows, long tick, Map<Integer, Long> seeksBefore) {
        boolean seeking = false;
        for (SegmentCheckpoint row : rows) {
            seeking |= row.requestedCheckpoint() != null;
            SegmentReader reader = readers.get(row.segment().index());
            if (reader == null) {
                continue;
            }
            reader.paused = row.paused();
            // a seek done since this tick read began is not asked for again by the row read before it was saved
            if (Objects.equals(seeksBefore.get(row.segment().index()), reader.seeksDone)) {
                reader.requestedSeek = row.requestedCheckpoint();
            }
        }
        List<ResetWaiter> seen = new ArrayList<>();
        synchronized (resetWaiters) {
            seenWaiters.removeIf(waiter -> waiter.after() < tick && seen.add(waiter));
        }
        seen.forEach(waiter -> waiter.done().tryEmitEmpty());
        if (!seeking) {
            List<ResetWaiter> done = new ArrayList<>();
            synchronized (resetWaiters) {
                resetWaiters.removeIf(waiter -> waiter.after() < tick && done.add(waiter));
            }
            done.forEach(waiter -> waiter.done().tryEmitEmpty());
        }
    }

    private Mono<Void> rebalance(List<SegmentCheckpoint> rows) {
        int fair = (settings.segments() + alive - 1) / alive;
        List<SegmentReader> active = readers.values().stream()
                .filter(reader -> reader.reading() && !reader.releasing)
                .sorted(Comparator.comparingInt((SegmentReader reader) -> reader.segment.index())
                        .reversed())
                .toList();
        if (active.size() > fair) {
            active.subList(0, active.size() - fair).forEach(SegmentReader::release);
            return Mono.empty();
        }
        Instant now = clock.instant();
        List<Integer> free = rows.stream()
                .filter(row -> !readers.containsKey(row.segment().index()))
                .filter(row -> owner.equals(row.owner()) || !row.claimedAt(now))
                .map(row -> row.segment().index())
                .toList();
        return Flux.fromIterable(free)
                .concatMap(index -> claim(index).thenReturn(index))
                .take(fair - active.size())
                .then();
    }

    /** Claims a segment; emits only when this instance got it, and starts reading it. */
    private Mono<Boolean> claim(int index) {
        return checkpoints
                .claim(processor.name(), index, owner, settings.lease())
                .filter(won -> won && reading)
                .doOnNext(won -> {
                    SegmentReader reader = new SegmentReader(new Segment(index, settings.segments()));
                    readers.put(index, reader);
                    reader.start();
                });
    }

    private Mono<Void> tickFailed(Throwable error) {
        if (!segmentsRecorded && error instanceof IllegalStateException refused) {
            stopReading();
            context.reportFailure(refused);
            return Mono.empty();
        }
        log.warn(
                "{} (owner {}) failed coordinating its segments: {}; trying again in {}",
                name(),
                owner,
                error.toString(),
                settings.pollInterval());
        return Mono.empty();
    }

    /** A defect (the loop itself threw): reported to the runtime, which stops. Store failures never get here. */
    private void loopFailed(Throwable error) {
        stopReading();
        context.reportFailure(
                new IllegalStateException(name() + " (owner " + owner + ") stopped coordinating: " + error, error));
    }

    /**
     * Discards the sequences of the segment's aggregates in the queue: all of the processor's with one segment ({@link
     * DeadLetterQueue#discard}), else the segment's one by one.
     */
    private Mono<Integer> discard(Segment segment) {
        if (segment.count() == 1) {
            return queue.discard(processor.name());
        }
        return queue.sequences()
                .flatMapIterable(sequences -> sequences)
                .filter(sequence ->
                        sequence.processor().equals(processor.name()) && segment.contains(sequence.aggregateId()))
                .concatMap(sequence -> queue.list(processor.name(), sequence.aggregateId()))
                .concatMap(letters -> Flux.fromIterable(letters)
                        .concatMap(letter -> queue.evict(letter).thenReturn(1)))
                .reduce(0, Integer::sum);
    }

    private long now() {
        return timer.now(TimeUnit.MILLISECONDS);
    }

    private void stopReading() {
        reading = false;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // one segment's reader: one step at a time; each returns how long to wait before the next

    /**
     * Reads one segment this instance claimed, on its own loop on the {@code timer}: loads the checkpoint, then reads,
     * offers to the lanes and saves, renewing the claim every third of the lease. It ends once it lost the claim, or
     * released it (asked to by the rebalancing, after every stream it read settled), or the processor stops.
     */
    private final class SegmentReader {
        private final Segment segment;

        // read and written by this reader's loop only, one step at a time
        private SettledPositions positions = new SettledPositions(0);
        private long next;
        private boolean loaded;
        private long renewedAt;
        private long savedAt;

        private volatile boolean claimed = true;
        private volatile boolean releasing;
        private volatile boolean paused;
        private volatile @Nullable Long requestedSeek;
        private volatile long seeksDone;
        private volatile long segmentSaved = -1;
        private volatile @Nullable Disposable segmentLoop;

        SegmentReader(Segment segment) {
            this.segment = segment;
        }

        boolean reading() {
            return claimed;
        }

        void release() {
            releasing = true;
        }

        void start() {
            renewedAt = now();
            segmentLoop = Mono.defer(this::step)
                    .onErrorResume(this::stepFailed)
                    .flatMap(delay -> Mono.delay(delay, timer))
                    .repeat(() -> reading && claimed)
                    .doOnComplete(() -> {
                        if (!claimed) {
                            readers.remove(segment.index(), this); // released or lost: the segment may be claimed again
                        }
                    })
                    .subscribe(null, TrackingProcessor.this::loopFailed);
        }

        private Mono<Duration> step() {
            if (!loaded) {
                return load();
            }
            return renewIfDue().then(Mono.defer(() -> {
                if (!claimed) {
                    return Mono.just(settings.pollInterval());
                }
                if (releasing) {
                    return releaseWhenSettled();
                }
                Long seek = requestedSeek;
                Mono<Duration> work =
                        seek != null ? seekWhenSettled(seek) : paused ? Mono.just(settings.pollInterval()) : readPage();
                return work.flatMap(delay -> saveIfDue().thenReturn(delay));
            }));
        }

        /**
         * Before it reads, the queue reads the parked sequences again (blocking, so off the loop's thread): the
         * instance that held the segment before may have parked some since this queue loaded them.
         */
        private Mono<Duration> load() {
            return Mono.fromRunnable(queue::reload)
                    .subscribeOn(Schedulers.boundedElastic())
                    .then(checkpoints.load(processor.name(), segment.index()))
                    .map(checkpoint -> {
                        restartFrom(checkpoint);
                        loaded = true;
                        log.info("{} {} claimed by {} from checkpoint {}", name(), segment, owner, checkpoint);
                        return Duration.ZERO;
                    });
        }

        private void restartFrom(long checkpoint) {
            positions = new SettledPositions(checkpoint);
            next = checkpoint + 1;
            saved(checkpoint);
        }

        private void saved(long checkpoint) {
            segmentSaved = checkpoint;
            if (segment.index() == 0) {
                saved = checkpoint;
            }
        }

        private Mono<Void> renewIfDue() {
            long now = now();
            if (now - renewedAt < settings.lease().toMillis() / 3) {
                return Mono.empty();
            }
            return checkpoints
                    .claim(processor.name(), segment.index(), owner, settings.lease())
                    .doOnNext(held -> {
                        if (held) {
                            renewedAt = now;
                        } else {
                            lost();
                        }
                    })
                    .then();
        }

        private Mono<Duration> readPage() {
            int room = settings.maxInFlight() - positions.inFlight();
            if (room < 1) {
                return Mono.just(FULL_BACKOFF);
            }
            int limit = Math.min(settings.pageSize(), room);
            return store.readAll(next, limit, routes.keySet(), segment)
                    .collectList()
                    .map(page -> {
                        page.forEach(this::offer);
                        return page.size() == limit ? Duration.ZERO : settings.pollInterval();
                    });
        }

        private void offer(PositionedStream positioned) {
            long position = positioned.position();
            BacklogRoute<MessageExchange<Object>> route =
                    routes.get(positioned.aggregateId().materialize());
            SettledPositions tracker = positions;
            tracker.offered(position, route != null);
            next = position + 1;
            if (route != null && !route.offer(exchange(positioned, tracker))) {
                stopReading(); // the lanes stopped taking: the position stays unsettled, read again on the next start
            }
        }

        private Mono<Duration> releaseWhenSettled() {
            if (positions.inFlight() > 0) {
                return Mono.just(FULL_BACKOFF);
            }
            return save(positions.checkpoint())
                    .then(checkpoints.release(processor.name(), segment.index(), owner))
                    .then(Mono.fromCallable(() -> {
                        claimed = false;
                        log.info("{} {} released by {} at checkpoint {}", name(), segment, owner, segmentSaved);
                        return Duration.ZERO;
                    }));
        }

        private Mono<Duration> seekWhenSettled(long checkpoint) {
            if (positions.inFlight() > 0 || operating.get() > 0) {
                return Mono.just(FULL_BACKOFF);
            }
            resetting.incrementAndGet();
            return Mono.defer(() -> onReset.apply(segment))
                    .then(Mono.defer(() -> discard(segment)))
                    .doOnNext(discarded -> log.info(
                            "{} {} seeking to checkpoint {}: discarded {} dead letter(s) in {}",
                            name(),
                            segment,
                            checkpoint,
                            discarded,
                            queue))
                    .then(checkpoints.seek(processor.name(), segment.index(), owner, checkpoint))
                    .map(stored -> {
                        if (!stored) {
                            lost();
                            return settings.pollInterval();
                        }
                        restartFrom(checkpoint);
                        requestedSeek = null;
                        seeksDone++;
                        log.info("{} {} reading again after checkpoint {}", name(), segment, checkpoint);
                        return Duration.ZERO;
                    })
                    .doFinally(signal -> resetting.decrementAndGet());
        }

        private Mono<Void> saveIfDue() {
            long now = now();
            long checkpoint = positions.checkpoint();
            if (checkpoint == segmentSaved
                    || now - savedAt < settings.checkpointInterval().toMillis()) {
                return Mono.empty();
            }
            return save(checkpoint).doOnSuccess(ignored -> savedAt = now);
        }

        private Mono<Void> save(long checkpoint) {
            return checkpoints
                    .save(processor.name(), segment.index(), owner, checkpoint)
                    .doOnNext(stored -> {
                        if (stored) {
                            saved(checkpoint);
                        } else {
                            lost();
                        }
                    })
                    .then();
        }

        /** After a graceful stop drained the lanes: saves what they reached and releases the segment. */
        Mono<Void> finalSave() {
            if (!claimed || !loaded) {
                return Mono.empty();
            }
            return save(positions.checkpoint())
                    .then(checkpoints.release(processor.name(), segment.index(), owner))
                    .doFinally(signal -> claimed = false);
        }

        private void lost() {
            claimed = false;
            log.warn(
                    "{} {} lost its claim (owner {}) at checkpoint {}: another instance took over; this one reads it"
                            + " no more",
                    name(),
                    segment,
                    owner,
                    segmentSaved);
        }

        private Mono<Duration> stepFailed(Throwable error) {
            log.warn(
                    "{} {} (owner {}) failed reading or saving from position {}: {}; trying again in {}",
                    name(),
                    segment,
                    owner,
                    next,
                    error.toString(),
                    settings.pollInterval());
            return Mono.just(settings.pollInterval());
        }
    }

    private MessageExchange<Object> exchange(PositionedStream positioned, SettledPositions tracker) {
        DomainEventStream stream = positioned.stream();
        long position = positioned.position();
        return new AttemptedStream(new LocalExchange<>(
                stream,
                stream.aggregateId(),
                () -> tracker.settled(position),
                reason -> log.debug("{} not handled: position {} ({})", name(), position, reason.toString())));
    }

    // ---------------------------------------------------------------------------------------------------------------
    // stopping

    @Override
    public void quiesce() {
        polling.stop();
        stopReading();
        group.quiesce();
    }

    /** Stops reading, drains the lanes, then saves the checkpoint they reached and releases the claim. */
    @Override
    public Mono<Void> stopGracefully() {
        return lifecycle.stop(() -> {
            stopLoop();
            return group.stopGracefully().then(Mono.defer(this::finalSave));
        });
    }

    private void stopLoop() {
        polling.stop();
        stopReading();
        Disposable current = loop;
        if (current != null) {
            current.dispose();
        }
        readers.values().forEach(reader -> {
            Disposable readerLoop = reader.segmentLoop;
            if (readerLoop != null) {
                readerLoop.dispose();
            }
        });
        List<ResetWaiter> resets;
        List<ResetWaiter> seen;
        synchronized (resetWaiters) {
            resets = List.copyOf(resetWaiters);
            seen = List.copyOf(seenWaiters);
            resetWaiters.clear();
            seenWaiters.clear();
        }
        resets.forEach(waiter ->
                waiter.done().tryEmitError(new IllegalStateException(name() + " stopped before its reset was done")));
        seen.forEach(waiter -> waiter.done()
                .tryEmitError(
                        new IllegalStateException(name() + " stopped before a tick saw the operators' requests")));
    }

    private Mono<Void> finalSave() {
        return Flux.fromIterable(List.copyOf(readers.values()))
                .concatMap(SegmentReader::finalSave)
                .then(Mono.defer(() -> checkpoints.leave(processor.name(), owner)))
                .doFinally(signal -> readers.clear());
    }

    @Override
    public boolean holdsUnleasedWork() {
        return group.holdsUnleasedWork();
    }

    /** Stops reading and forces the lanes; the checkpoint stays at its last save (what follows is read again). */
    @Override
    public void forceStop() {
        stopLoop();
        group.forceStop();
    }

    @Override
    public String toString() {
        return "TrackingProcessor[" + processor.name() + ", owner " + owner + ", saved " + saved + "]";
    }

    /** Configures a {@link TrackingProcessor}. */
    public static final class Builder {
        private final EventProcessor processor;
        private final EventStore store;
        private final CheckpointStore checkpoints;
        private TrackingSettings settings = TrackingSettings.DEFAULT;
        private LaneSettings laneSettings = LaneSettings.DEFAULT;
        private @Nullable AggregateSchedulerSupplier schedulers;
        private DeadLetterQueue deadLetterQueue = DeadLetterQueues.inMemory();
        private Duration retryPollInterval = CompositeEventDispatcher.DEFAULT_RETRY_REQUEST_POLL;
        private @Nullable Scheduler retryPollTimer;
        private DispatcherMetrics metrics = DispatcherMetrics.NONE;
        private MessageTracing tracing = MessageTracing.NONE;
        private String owner = UUID.randomUUID().toString();
        private Scheduler timer = Schedulers.parallel();
        private @Nullable Supplier<Mono<Void>> wholeReset;
        private Function<Segment, Mono<Void>> onReset = segment -> Mono.empty();
        private Clock clock = Clock.systemUTC();

        private Builder(EventProcessor processor, EventStore store, CheckpointStore checkpoints) {
            this.processor = Objects.requireNonNull(processor, "processor");
            if (processor.kind() == ProcessorKind.SAGA) {
                throw new IllegalArgumentException("A saga cannot track the store (its commands would be sent again on"
                        + " a rebuild): " + processor);
            }
            this.store = Objects.requireNonNull(store, "store");
            this.checkpoints = Objects.requireNonNull(checkpoints, "checkpoints");
        }

        public Builder settings(TrackingSettings settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        public Builder laneSettings(LaneSettings laneSettings) {
            this.laneSettings = Objects.requireNonNull(laneSettings, "laneSettings");
            return this;
        }

        /** The lanes' schedulers, owned: stopped after the lanes drained. Default {@code perType("Tracking-<name>")}. */
        public Builder schedulers(AggregateSchedulerSupplier schedulers) {
            this.schedulers = Objects.requireNonNull(schedulers, "schedulers");
            return this;
        }

        /**
         * Where streams whose retries ran out are parked, in sequences that hold their aggregate's later streams (see
         * {@link TrackingProcessor}); a new {@link DeadLetterQueues#inMemory()} unless set. Use a queue that lasts as
         * long as the checkpoint store: a parked stream is settled once the queue stored it, so a checkpoint that
         * outlives the queue (the in-memory queue with {@code PostgresCheckpointStore}) forgets it at a restart.
         */
        public Builder deadLetterQueue(DeadLetterQueue deadLetterQueue) {
            this.deadLetterQueue = Objects.requireNonNull(deadLetterQueue, "deadLetterQueue");
            return this;
        }

        /**
         * How often the instance that holds the claim takes the retries requested from outside (by {@code lanes parked
         * retry|skip}) from its dead-letter queue, and where that is timed; every {@link
         * CompositeEventDispatcher#DEFAULT_RETRY_REQUEST_POLL} on the {@link #timer} unless set. An in-memory queue
         * has no such requests.
         *
         * @throws IllegalArgumentException naming the value if not positive
         */
        public Builder retryRequestPolling(Duration interval, Scheduler timer) {
            this.retryPollInterval = Require.positive(interval, "retryRequestPolling");
            this.retryPollTimer = Objects.requireNonNull(timer, "timer");
            return this;
        }

        /**
         * Traces the processor's handling of each stream it reads ({@link MessageTracing#handling}): the stored headers
         * carry the trace of the command that appended it, so the handling continues that trace. {@link
         * MessageTracing#NONE} unless set (a tracking processor registered with {@code Lanes.Builder#trackingProcessor}
         * is traced only if built with this).
         */
        public Builder tracing(MessageTracing tracing) {
            this.tracing = Objects.requireNonNull(tracing, "tracing");
            return this;
        }

        public Builder metrics(DispatcherMetrics metrics) {
            this.metrics = Objects.requireNonNull(metrics, "metrics");
            return this;
        }

        /** This instance's name in claims; unique per running instance. Default: a random UUID. */
        public Builder owner(String owner) {
            this.owner = Require.notBlank(owner, "owner");
            return this;
        }

        /** Where the reading loop runs and waits. Default: Reactor's parallel scheduler. */
        public Builder timer(Scheduler timer) {
            this.timer = Objects.requireNonNull(timer, "timer");
            return this;
        }

        /**
         * What a reset or seek runs before the processor reads from its new checkpoint ({@link
         * TrackingProcessor#reset()}, {@code lanes processors reset|seek}): clear the projection there. Only for a
         * processor of one segment: with more, each segment resets on its own, so give {@link #onSegmentReset}.
         */
        public Builder onReset(Supplier<Mono<Void>> onReset) {
            Objects.requireNonNull(onReset, "onReset");
            this.wholeReset = onReset;
            this.onReset = segment -> onReset.get();
            return this;
        }

        /**
         * What a reset or seek of one segment runs before the segment is read from its new checkpoint: clear the part of
         * the projection built from that segment's aggregates ({@link Segment#contains}). Runs on the instance that
         * owns the segment, once every stream it read of the segment settled.
         */
        public Builder onSegmentReset(Function<Segment, Mono<Void>> onSegmentReset) {
            this.onReset = Objects.requireNonNull(onSegmentReset, "onSegmentReset");
            this.wholeReset = null;
            return this;
        }

        /**
         * The clock that tells which claims read from the checkpoint store look expired (only to decide which segments
         * to try to claim: the store decides on its own clock). Default: the system clock.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * @throws IllegalArgumentException if the settings have more than one segment and {@link #onReset} (which
         *     clears the whole projection) was given instead of {@link #onSegmentReset}
         */
        public TrackingProcessor build() {
            if (wholeReset != null && settings.segments() > 1) {
                throw new IllegalArgumentException("Tracking-" + processor.name() + " reads " + settings.segments()
                        + " segments, which reset one at a time, but was given onReset, which clears the whole"
                        + " projection: give onSegmentReset instead");
            }
            AggregateSchedulerSupplier owned = schedulers;
            return new TrackingProcessor(
                    this, owned != null ? owned : AggregateSchedulers.perType("Tracking-" + processor.name()));
        }
    }
}
