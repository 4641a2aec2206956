package dev.lanes.kafka;

import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.dispatch.ExchangeRejectedException;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.event.OwnershipFence;
import dev.lanes.event.OwnershipLostException;
import dev.lanes.flow.IntakeGate;
import dev.lanes.lifecycle.RuntimeContext;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One consumer group member: a thread that alone owns its {@link KafkaConsumer} (which is not thread-safe). It polls,
 * hands each partition's records to the receivers of their aggregate types in offset order, and commits per partition
 * only up to the lowest record not settled ({@link PartitionOffsets}). Lane threads settle records by queueing a task
 * for this thread.
 *
 * <p><b>Backpressure</b>, per partition: a partition whose records in the lanes reach {@code maxUnsettledPerPartition},
 * or whose fetched records wait beyond {@code maxBufferedPerPartition}, is paused ({@code consumer.pause}); the other
 * partitions go on. A receiver without demand, a closed intake gate (new commands only: follow-ups still flow), or a
 * stop holds the partition at that record.
 *
 * <p><b>Rebalance</b>: a revoked partition hands out nothing more; its records in flight get up to {@code
 * revokeTimeout} to settle, then its contiguous offset is committed synchronously and it is let go. An assigned
 * partition starts from its committed offset; its records that were already in it may have been handled by the earlier
 * owner, and say so ({@link MessageExchange#mayBeRedelivered()}). The hooks given as {@code beforeDelivery} run in
 * {@code onPartitionsAssigned}, so before any record of the assigned partitions is handed out. When one throws, the
 * partitions stay paused and hand out nothing: the hooks are run again, all of them in order, after a backoff of
 * {@link AssignmentHooks#RETRY_FIRST} doubling to {@link AssignmentHooks#RETRY_MAX}, until they all ran (each failure
 * is logged at WARN); the consumer's other partitions go on. A hook that must not hold its partitions must not throw.
 *
 * <p><b>Ownership</b>: before those hooks, each assigned partition is claimed ({@code claims}: the event bus takes a new
 * ownership epoch for it in the dead-letter queue), and every record handed out carries what the claim returned. A
 * claim that throws holds its partition as a failing hook does, and runs again with the hooks. A record handed back
 * because another instance claimed its partition since ({@link OwnershipLostException}: the partition was lost while
 * the record was in a lane) halts the partition without reading it again: this member no longer owns it, and Kafka
 * takes it back at the next poll (its offset commits for it are refused by the broker: see docs/guides/kafka-and-scaling-out.md).
 *
 * <p><b>Records that cannot be read.</b> An event whose payload the codec cannot decode does not stop its record: the
 * {@link MessageReader} hands over the stream with that payload kept encoded, and the processor's dead-letter queue
 * holds the aggregate. A record whose envelope cannot be read (not JSON, another schema version, a field missing, a
 * tombstone; for commands and answers also the payload) names no aggregate to hold: it is logged at ERROR, parked in
 * the {@link RecordParkingLot} and passed over, and the partition moves on.
 *
 * <p><b>Rejection</b> (a lane handed a record back): the partition stops at it; once nothing of it is in flight it is
 * read again from there, unless the consumer is stopping (then the commit stays below it, for the next owner).
 *
 * <p><b>Lifecycle and threads</b>: one {@link LoopState} in one {@link LoopLifecycle}, moved only by compare-and-set
 * ({@code NEW -> RUNNING -> CLOSING -> FORCED -> TERMINATED}, with the intake {@code NEW_AND_FOLLOW_UPS ->
 * FOLLOW_UPS_ONLY -> NONE}). The runtime's threads move {@link #start}, {@link #stopTakingNew}, {@link #quiesce},
 * {@link #close}, {@link #forceStop} and {@link #neverStarted}; each takes effect at the consumer thread's next turn
 * (a force also wakes the consumer up from a blocking call). The consumer thread alone attaches and releases its
 * consumer, forces the loop when it fails, and ends it. Lane threads only queue settlements ({@link #settled}, {@link
 * #rejected}) for the consumer thread, which alone touches the partitions and the consumer. A record whose hand-over
 * began before a close or a force is handed over; nothing is after. After the end, settlements are ignored and the
 * next owner reads what was not committed.
 *
 * <p>Each turn of the consumer thread: the queued settlements, then the lifecycle (leave on a close or a force), then
 * rewinds and the assignment hooks' retries, the hand-over of what was fetched, {@link Backpressure}, the commits that
 * are due ({@link Commits}), and the next poll (inside which Kafka calls the rebalance listener, which keeps the
 * {@link Assignment} and runs the {@link AssignmentHooks}).
 *
 * @param <M> the message type
 */
final class ConsumerLoop<M> implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);
    private static final Duration SHORT_POLL = Duration.ofMillis(5);

    private final String name;
    private final String group;
    private final Function<MaterializedNamedAggregate, String> topicOf;
    private final Set<MaterializedNamedAggregate> expected = ConcurrentHashMap.newKeySet();
    private final KafkaOptions options;
    private final MessageReader<M> reader;
    private final RecordParkingLot parkingLot;
    private final Map<MaterializedNamedAggregate, RecordRoute<M>> routes = new ConcurrentHashMap<>();
    private final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    private final LoopLifecycle lifecycle = new LoopLifecycle();
    private final Sinks.Empty<Void> terminated = Sinks.empty();
    private volatile RuntimeContext context = RuntimeContext.standalone();

    // the consumer thread's own
    private final Assignment assignment = new Assignment();
    private final AssignmentHooks hooks;
    private final Backpressure backpressure;
    private final Commits commits;

    ConsumerLoop(
            String name,
            String group,
            Function<MaterializedNamedAggregate, String> topicOf,
            KafkaOptions options,
            MessageReader<M> reader,
            RecordParkingLot parkingLot,
            List<Runnable> beforeDelivery,
            Function<TopicPartition, OwnershipFence> claims) {
        this.name = name;
        this.group = group;
        this.topicOf = topicOf;
        this.options = options;
        this.reader = reader;
        this.parkingLot = parkingLot;
        this.hooks = new AssignmentHooks(name, beforeDelivery, claims);
        this.backpressure = new Backpressure(options);
        this.commits = new Commits(
                name,
                options.commitInterval(),
                options.startupTimeout(),
                () -> lifecycle.current().isForced());
    }

    // ---------------------------------------------------------------- any thread: receivers and views

    /** Declares the receiver of {@code type}; its commands or streams flow once it subscribes and requests. */
    Flux<MessageExchange<M>> route(MaterializedNamedAggregate type, @Nullable IntakeGate gate) {
        RecordRoute<M> route = new RecordRoute<>(type, gate, name);
        if (routes.putIfAbsent(type, route) != null) {
            throw new IllegalStateException(name + " already has a receiver for " + type);
        }
        return route.flux();
    }

    /** Declares a type whose receiver will come (at its dispatcher's prepare): its topic is checked and read. */
    void expect(MaterializedNamedAggregate type) {
        expected.add(type);
    }

    /** The topics of the types expected or received. */
    Set<String> topics() {
        Set<String> topics = new TreeSet<>();
        expected.forEach(type -> topics.add(topicOf.apply(type)));
        routes.keySet().forEach(type -> topics.add(topicOf.apply(type)));
        return topics;
    }

    Set<TopicPartition> assignment() {
        return assignment.view();
    }

    Set<TopicPartition> paused() {
        return backpressure.paused();
    }

    /** The lifecycle now (a snapshot). */
    LoopState state() {
        return lifecycle.current();
    }

    // ---------------------------------------------------------------- any thread: the lifecycle

    /**
     * NEW to RUNNING: starts the consumer thread.
     *
     * @throws IllegalStateException naming this loop and its state when it was started before, or stopped
     */
    void start(RuntimeContext context) {
        Objects.requireNonNull(context, "context");
        lifecycle.move(current -> current.started(name));
        this.context = context;
        Thread thread = new Thread(this, "lanes-kafka-" + group + "-" + options.instanceId());
        thread.setDaemon(true);
        thread.start();
    }

    /** New work is no longer taken: follow-ups still are, until {@link #quiesce()}. */
    void stopTakingNew() {
        lifecycle.move(LoopState::followUpsOnly);
    }

    /** Nothing more is handed to the lanes; what they hold still settles and is committed. */
    void quiesce() {
        lifecycle.move(LoopState::quiesced);
    }

    /**
     * Hands out nothing more, waits (at most the revoke timeout) for what is in flight, commits, leaves the group;
     * after a force, only waits for the end.
     *
     * @return completes once the consumer thread ended (or at once if the loop never started and {@link #neverStarted}
     *     was called)
     */
    Mono<Void> close() {
        lifecycle.move(LoopState::closing);
        return terminated.asMono();
    }

    /**
     * Leaves at once, committing nothing: what was not committed before is redelivered to the next owner. Wakes the
     * consumer up if the consumer thread is blocked in it; the winner of the move wakes it, once.
     */
    void forceStop() {
        LoopLifecycle.Moved forced = lifecycle.move(LoopState::forcing);
        Consumer<String, byte[]> open = forced == null ? null : forced.to().consumer();
        if (open != null) {
            open.wakeup();
        }
    }

    /** Ends the termination of a loop that never started; nothing once its thread was started (that thread ends it). */
    void neverStarted() {
        if (lifecycle.move(LoopState::neverStarted) != null) {
            terminated.tryEmitEmpty();
        }
    }

    // ---------------------------------------------------------------- lane threads: settlements

    /** From a lane thread: the record was handled or parked. */
    void settled(KafkaExchange<M> exchange) {
        reader.settled(exchange.message);
        reader.whenSettleable(
                exchange.message,
                () -> tasks.add(() -> {
                    if (exchange.partition.live) {
                        exchange.partition.offsets.settle(exchange.offset);
                    }
                }));
    }

    /** From a lane thread: the record was handed back unhandled. */
    void rejected(KafkaExchange<M> exchange, Throwable reason) {
        reader.settled(exchange.message);
        tasks.add(() -> {
            PartitionState partition = exchange.partition;
            if (!partition.live || !partition.offsets.reject(exchange.offset)) {
                return;
            }
            partition.halted = true;
            if (reason instanceof OwnershipLostException lost) {
                ownershipLost(partition, lost);
                return;
            }
            boolean stop = reason instanceof ExchangeRejectedException rejected
                    && switch (rejected.reason()) {
                        case STOPPING, ADMISSION_CLOSED, FORCED -> true;
                        default -> false;
                    };
            if (!stop && !lifecycle.current().isQuiesced()) {
                partition.rewind = true;
                log.warn(
                        "{}: {} handed {} back ({}); the partition is read again from it once nothing of it is in"
                                + " flight (use LaneSettings.Overflow.PAUSE with Kafka: a full lane then pauses)",
                        name,
                        partition.partition,
                        exchange,
                        reason.toString());
            }
        });
    }

    // ---------------------------------------------------------------- the consumer thread: lifecycle

    @Override
    public void run() {
        KafkaConsumer<String, byte[]> open = null;
        try {
            open = new KafkaConsumer<>(consumerProperties());
            if (pollUntilStopped(open)) {
                open = null; // it left the group gracefully
            }
        } catch (WakeupException woken) {
            if (!lifecycle.current().isForced()) {
                fail(woken);
            }
        } catch (Throwable error) {
            fail(error);
        } finally {
            if (open != null) {
                forceClose(open);
            }
            lifecycle.move(LoopState::ended);
            terminated.tryEmitEmpty();
        }
    }

    /**
     * Attaches the consumer and turns until a close ({@code true}, once it left the group gracefully) or a force
     * ({@code false}).
     */
    private boolean pollUntilStopped(KafkaConsumer<String, byte[]> kafka) {
        if (lifecycle.move(current -> current.attached(kafka, name)) == null) {
            return false; // forced before it polled
        }
        kafka.subscribe(topics(), new Rebalance());
        commits.start();
        while (!lifecycle.current().isForced()) {
            runTasks();
            if (lifecycle.current().isClosing()) {
                closeGracefully(kafka);
                return true;
            }
            turn(kafka);
        }
        return false;
    }

    /**
     * One turn: rewinds, hook retries, hand-over, backpressure, commits, then the next poll (a short one while a record
     * waits: no demand, a paused partition).
     */
    private void turn(KafkaConsumer<String, byte[]> kafka) {
        rewind(kafka);
        hooks.retryIfDue(assignment.all());
        boolean blocked = !handOut();
        blocked |= backpressure.apply(kafka, assignment.all());
        commits.ifDue(kafka, assignment);
        buffer(kafka.poll(blocked ? SHORT_POLL : options.pollTimeout()));
    }

    private void fail(Throwable error) {
        log.error("{} failed; its uncommitted records go to the next owner", name, error);
        lifecycle.move(LoopState::forcing);
        context.reportFailure(new IllegalStateException(name + " failed: " + error, error));
    }

    private Properties consumerProperties() {
        Properties properties = new Properties();
        properties.putAll(options.clientProperties());
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, options.instanceId() + "-" + group);
        properties.putIfAbsent(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        properties.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return properties;
    }

    private void runTasks() {
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
            task.run();
        }
    }

    /** Waits for what is in flight (at most the revoke timeout), commits it, then leaves the group. */
    private void closeGracefully(KafkaConsumer<String, byte[]> kafka) {
        List<PartitionState> all = new ArrayList<>(assignment.all());
        drain(all, "stopping");
        commits.now(kafka, all);
        assignment.forgetAll();
        try {
            kafka.close(CloseOptions.timeout(Duration.ofSeconds(5))
                    .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
        } catch (RuntimeException error) {
            log.warn("{}: closing the consumer failed: {}", name, error.toString());
        }
        lifecycle.move(LoopState::released);
    }

    /** After a failure or a force: leaves the group without committing. */
    private void forceClose(KafkaConsumer<String, byte[]> kafka) {
        lifecycle.move(LoopState::released);
        assignment.forgetAll();
        try {
            kafka.close(CloseOptions.timeout(Duration.ofSeconds(1))
                    .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
        } catch (RuntimeException error) {
            log.debug("{}: closing the consumer after a force failed: {}", name, error.toString());
        }
    }

    /** Runs settlements until nothing of {@code states} is in flight, at most the revoke timeout (unless forced). */
    private void drain(List<PartitionState> states, String why) {
        states.forEach(partition -> partition.buffered.clear());
        long deadline = System.nanoTime() + options.revokeTimeout().toNanos();
        while (!lifecycle.current().isForced() && inFlight(states) > 0 && System.nanoTime() - deadline < 0) {
            try {
                Runnable task = tasks.poll(10, TimeUnit.MILLISECONDS);
                if (task != null) {
                    task.run();
                    runTasks();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        int left = inFlight(states);
        if (left > 0 && !lifecycle.current().isForced()) {
            log.warn(
                    "{} ({}): {} record(s) still in flight after {}; committed below them, so the next owner reads"
                            + " them again",
                    name,
                    why,
                    left,
                    options.revokeTimeout());
        }
    }

    private static int inFlight(List<PartitionState> states) {
        int sum = 0;
        for (PartitionState partition : states) {
            sum += partition.offsets.inFlight();
        }
        return sum;
    }

    // ---------------------------------------------------------------- the consumer thread: poll and hand over

    private void buffer(ConsumerRecords<String, byte[]> records) {
        for (ConsumerRecord<String, byte[]> record : records) {
            PartitionState partition = assignment.get(new TopicPartition(record.topic(), record.partition()));
            if (partition == null || !partition.live) {
                continue; // revoked while this batch was fetched: the next owner reads it
            }
            partition.buffered.add(decode(record));
        }
    }

    private Fetched<M> decode(ConsumerRecord<String, byte[]> record) {
        try {
            if (record.value() == null) {
                throw new RecordDecodingException("the record has no value (a tombstone)");
            }
            return new Fetched<>(record, reader.decode(record), null);
        } catch (RuntimeException error) {
            return new Fetched<>(record, null, error);
        }
    }

    /**
     * Hands out each partition's records in offset order while their receivers take them; {@code false} when a record
     * must wait.
     */
    private boolean handOut() {
        boolean all = true;
        for (PartitionState partition : assignment.all()) {
            while (!partition.halted && !partition.awaitingHooks && !partition.buffered.isEmpty()) {
                @SuppressWarnings("unchecked")
                Fetched<M> next = (Fetched<M>) partition.buffered.peek();
                if (!handOut(partition, next)) {
                    all = false;
                    break;
                }
                partition.buffered.poll();
            }
        }
        return all;
    }
    /** {@code false} when the record must wait (no demand, intake closed, stopping). */
    private boolean handOut(PartitionState partition, Fetched<M> fetched) {
        ConsumerRecord<String, byte[]> record = fetched.record();
        M message = fetched.message();
        if (message == null) { // no envelope, so no aggregate to hold: an event whose payload failed is in message
            Throwable error = Objects.requireNonNull(fetched.error(), "error");
            log.error(
                    "{}: {}-{}@{} (key {}) cannot be read, so no aggregate can be held for it: parked in {} and passed"
                            + " over; records after it are handled without it: {}",
                    name,
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    record.key(),
                    parkingLot,
                    error.toString());
            park(record, error);
            partition.offsets.skipped(record.offset());
            return true;
        }
        RecordRoute<M> route = routes.get(reader.aggregateId(message).materialize());
        if (route == null) {
            if (reader.parksUnroutable()) {
                park(
                        record,
                        new IllegalStateException(name + " has no receiver for "
                                + reader.aggregateId(message).materialize() + " (receivers: " + routes.keySet() + ")"));
            }
            partition.offsets.skipped(record.offset());
            return true;
        }
        if (route.cancelled() || route.demand() == 0 || !admits(route, message)) {
            return false;
        }
        partition.offsets.handedOut(record.offset());
        route.emit(new KafkaExchange<>(
                message,
                reader.aggregateId(message),
                partition,
                record.offset(),
                record.offset() < partition.redeliveryBelow,
                Objects.requireNonNull(partition.fence, "fence"), // handed out only once claimed
                this));
        return true;
    }

    private boolean admits(RecordRoute<M> route, M message) {
        LoopState now = lifecycle.current();
        if (now.isQuiesced()) {
            return false;
        }
        IntakeGate gate = route.gate;
        boolean open = now.takesNew() && (gate == null || gate.isOpen());
        return open || reader.followUp(message);
    }

    private void park(ConsumerRecord<String, byte[]> record, Throwable error) {
        Map<String, String> headers = new HashMap<>();
        for (Header header : record.headers()) {
            headers.put(header.key(), header.value() == null ? "" : new String(header.value(), StandardCharsets.UTF_8));
        }
        parkingLot.park(new ParkedRecord(
                group,
                record.topic(),
                record.partition(),
                record.offset(),
                record.key(),
                headers,
                record.value(),
                error,
                Instant.now()));
    }

    /** A partition whose record was handed back is read again from it once nothing of it is in flight. */
    private void rewind(KafkaConsumer<String, byte[]> kafka) {
        for (PartitionState partition : assignment.all()) {
            if (partition.rewind
                    && partition.offsets.inFlight() == 0
                    && !lifecycle.current().isQuiesced()) {
                long from = partition.offsets.committable();
                kafka.seek(partition.partition, from);
                partition.offsets.restartAt(from);
                partition.buffered.clear();
                partition.halted = false;
                partition.rewind = false;
            }
        }
    }

    /** A lane could not park a record: another instance claimed its partition. Logged once per assignment. */
    private void ownershipLost(PartitionState partition, OwnershipLostException lost) {
        if (!partition.ownershipLost) {
            partition.ownershipLost = true;
            log.warn(
                    "{}: {} belongs to another instance now; nothing more of it is handed out here, and its record"
                            + " at {} and after go to the new owner: {}",
                    name,
                    partition.partition,
                    partition.offsets.committable(),
                    lost.getMessage());
        }
    }

    // ---------------------------------------------------------------- the consumer thread: rebalance

    /** Rebalance callbacks run on the consumer thread, inside {@code poll} (or {@code close}). */
    private final class Rebalance implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
            List<PartitionState> leaving = assignment.states(revoked);
            if (!leaving.isEmpty() && !lifecycle.current().isForced()) {
                drain(leaving, "revoked " + revoked);
                Consumer<String, byte[]> kafka = lifecycle.current().consumer();
                if (kafka != null) {
                    commits.now(kafka, leaving);
                }
            }
            forget(revoked);
            log.info("{}: revoked {}", name, revoked);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> lost) {
            forget(lost);
            log.warn("{}: lost {} (nothing committed for them; the new owner reads from the last commit)", name, lost);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
            if (assigned.isEmpty()) {
                return;
            }
            List<PartitionState> added = assignment.take(assigned, endOffsets(assigned));
            log.info("{}: assigned {}", name, assigned);
            hooks.assigned(assigned, added, assignment.all());
        }

        private Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> assigned) {
            Consumer<String, byte[]> kafka = lifecycle.current().consumer();
            if (kafka == null) {
                return Map.of();
            }
            try {
                return kafka.endOffsets(assigned, options.startupTimeout());
            } catch (RuntimeException error) {
                log.warn(
                        "{}: end offsets of {} unknown ({}); every record read is checked as a redelivery",
                        name,
                        assigned,
                        error.toString());
                return Map.of();
            }
        }

        private void forget(Collection<TopicPartition> gone) {
            assignment.forget(gone);
            backpressure.refresh(lifecycle.current().consumer());
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
