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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
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
 * {@link #HOOKS_RETRY_FIRST} doubling to {@link #HOOKS_RETRY_MAX}, until they all ran (each failure is logged at WARN);
 * the consumer's other partitions go on. A hook that must not hold its partitions must not throw.
 *
 * <p><b>Ownership</b>: before those hooks, each assigned partition is claimed ({@code claims}: the event bus takes a new
 * ownership epoch for it in the dead-letter queue), and every record handed out carries what the claim returned. A
 * claim that throws holds its partition as a failing hook does, and runs again with the hooks. A record handed back
 * because another instance claimed its partition since ({@link OwnershipLostException}: the partition was lost while
 * the record was in a lane) halts the partition without reading it again: this member no longer owns it, and Kafka
 * takes it back at the next poll (its offset commits for it are refused by the broker: see docs/kafka.md).
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
 * @param <M> the message type
 */
final class ConsumerLoop<M> implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);
    private static final Duration SHORT_POLL = Duration.ofMillis(5);
    static final Duration HOOKS_RETRY_FIRST = Duration.ofMillis(100);
    static final Duration HOOKS_RETRY_MAX = Duration.ofSeconds(5);

    private final String name;
    private final String group;
    private final Function<MaterializedNamedAggregate, String> topicOf;
    private final Set<MaterializedNamedAggregate> expected = ConcurrentHashMap.newKeySet();
    private final KafkaOptions options;
    private final MessageReader<M> reader;
    private final RecordParkingLot parkingLot;
    private final List<Runnable> beforeDelivery;
    private final Function<TopicPartition, OwnershipFence> claims;
    private final Map<MaterializedNamedAggregate, RecordRoute<M>> routes = new ConcurrentHashMap<>();
    private final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
    private final Map<TopicPartition, PartitionState> partitions = new LinkedHashMap<>();
    private final Sinks.Empty<Void> terminated = Sinks.empty();
    private volatile RuntimeContext context = RuntimeContext.standalone();
    private volatile @Nullable KafkaConsumer<String, byte[]> consumer;
    private volatile boolean takingNew = true;
    private volatile boolean quiesced;
    private volatile boolean closing;
    private volatile boolean forced;
    private volatile Set<TopicPartition> assignedView = Set.of();
    private volatile Set<TopicPartition> pausedView = Set.of();
    private long nextCommitAt;
    private boolean blocked;
    /** Whether the assignment hooks failed and partitions wait for them; consumer thread only. */
    private boolean hooksFailed;

    /** When the hooks that failed run again ({@code System.nanoTime}); consumer thread only. */
    private long hooksRetryAt;

    /** The wait after their next failure; consumer thread only. */
    private Duration hooksBackoff = HOOKS_RETRY_FIRST;

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
        this.beforeDelivery = beforeDelivery;
        this.claims = claims;
    }

    // ---------------------------------------------------------------- any thread

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
        Set<String> topics = new java.util.TreeSet<>();
        expected.forEach(type -> topics.add(topicOf.apply(type)));
        routes.keySet().forEach(type -> topics.add(topicOf.apply(type)));
        return topics;
    }

    void start(RuntimeContext context) {
        this.context = Objects.requireNonNull(context, "context");
        Thread thread = new Thread(this, "lanes-kafka-" + group + "-" + options.instanceId());
        thread.setDaemon(true);
        thread.start();
    }

    /** New work is no longer taken: follow-ups still are, until {@link #quiesce()}. */
    void stopTakingNew() {
        takingNew = false;
    }

    /** Nothing more is handed to the lanes; what they hold still settles and is committed. */
    void quiesce() {
        takingNew = false;
        quiesced = true;
    }

    /** Hands out nothing more, waits (at most the revoke timeout) for what is in flight, commits, leaves the group. */
    Mono<Void> close() {
        quiesce();
        closing = true;
        return terminated.asMono();
    }

    /** Leaves at once, committing nothing: what was not committed before is redelivered to the next owner. */
    void forceStop() {
        quiesce();
        forced = true;
        KafkaConsumer<String, byte[]> current = consumer;
        if (current != null) {
            current.wakeup();
        }
    }

    /** Ends the termination of a loop that never started. */
    void neverStarted() {
        terminated.tryEmitEmpty();
    }

    Set<TopicPartition> assignment() {
        return assignedView;
    }

    Set<TopicPartition> paused() {
        return pausedView;
    }

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
            if (!stop && !quiesced) {
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

    // ---------------------------------------------------------------- the consumer thread

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

    @Override
    public void run() {
        try {
            KafkaConsumer<String, byte[]> created = new KafkaConsumer<>(consumerProperties());
            consumer = created;
            created.subscribe(topics(), new Rebalance());
            nextCommitAt = System.nanoTime();
            while (!forced) {
                runTasks();
                if (closing) {
                    closeGracefully(created);
                    return;
                }
                rewind(created);
                retryHooks();
                handOut();
                pauseOrResume(created);
                commitIfDue(created);
                ConsumerRecords<String, byte[]> records = created.poll(blocked ? SHORT_POLL : options.pollTimeout());
                buffer(records);
            }
        } catch (WakeupException woken) {
            if (!forced) {
                fail(woken);
            }
        } catch (Throwable error) {
            fail(error);
        } finally {
            forceClose();
            terminated.tryEmitEmpty();
        }
    }

    private void fail(Throwable error) {
        log.error("{} failed; its uncommitted records go to the next owner", name, error);
        forced = true;
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

    private void buffer(ConsumerRecords<String, byte[]> records) {
        for (ConsumerRecord<String, byte[]> record : records) {
            PartitionState partition = partitions.get(new TopicPartition(record.topic(), record.partition()));
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

    /** Hands out each partition's records in offset order while their receivers take them. */
    private void handOut() {
        blocked = false;
        for (PartitionState partition : partitions.values()) {
            while (!partition.halted && !partition.awaitingHooks && !partition.buffered.isEmpty()) {
                @SuppressWarnings("unchecked")
                Fetched<M> next = (Fetched<M>) partition.buffered.peek();
                if (!handOut(partition, next)) {
                    blocked = true;
                    break;
                }
                partition.buffered.poll();
            }
        }
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
        if (quiesced) {
            return false;
        }
        IntakeGate gate = route.gate;
        boolean open = takingNew && (gate == null || gate.isOpen());
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
        for (PartitionState partition : partitions.values()) {
            if (partition.rewind && partition.offsets.inFlight() == 0 && !quiesced) {
                long from = partition.offsets.committable();
                kafka.seek(partition.partition, from);
                partition.offsets.restartAt(from);
                partition.buffered.clear();
                partition.halted = false;
                partition.rewind = false;
            }
        }
    }

    /** Runs the assignment hooks again once their backoff ran out, while partitions wait for them. */
    private void retryHooks() {
        if (!hooksFailed || System.nanoTime() - hooksRetryAt < 0) {
            return;
        }
        List<TopicPartition> waiting = new ArrayList<>();
        for (PartitionState partition : partitions.values()) {
            if (partition.awaitingHooks) {
                waiting.add(partition.partition);
            }
        }
        if (waiting.isEmpty()) { // revoked meanwhile
            hooksRan();
        } else if (runHooks(waiting)) {
            log.info("{}: the assignment hooks ran; handing out the records of {}", name, waiting);
            hooksRan();
        } else {
            holdForHooks();
        }
    }

    private void hooksRan() {
        for (PartitionState partition : partitions.values()) {
            partition.awaitingHooks = false;
        }
        hooksFailed = false;
        hooksBackoff = HOOKS_RETRY_FIRST;
    }

    /**
     * Claims every partition not claimed yet, then runs every hook in order; {@code false}, after logging it, at the
     * first that throws.
     */
    private boolean runHooks(Collection<TopicPartition> assigned) {
        if (!claimUnclaimed(assigned)) {
            return false;
        }
        for (Runnable hook : beforeDelivery) {
            try {
                hook.run();
            } catch (RuntimeException error) {
                log.warn(
                        "{}: {} failed before the records of {} were handed out; they are held, and the hooks run"
                                + " again in {} ms: {}",
                        name,
                        hook,
                        assigned,
                        hooksBackoff.toMillis(),
                        error.toString());
                return false;
            }
        }
        return true;
    }

    /**
     * Claims the partitions whose claim did not pass yet: this assignment's, and those an earlier one still holds (the
     * hooks run for all of them at once).
     */
    private boolean claimUnclaimed(Collection<TopicPartition> assigned) {
        for (PartitionState partition : partitions.values()) {
            if (partition.fence != null) {
                continue;
            }
            try {
                partition.fence = claims.apply(partition.partition);
            } catch (RuntimeException error) {
                log.warn(
                        "{}: claiming {} failed before the records of {} were handed out; they are held, and the"
                                + " claims and hooks run again in {} ms: {}",
                        name,
                        partition.partition,
                        assigned,
                        hooksBackoff.toMillis(),
                        error.toString());
                return false;
            }
        }
        return true;
    }

    private void holdForHooks() {
        hooksFailed = true;
        hooksRetryAt = System.nanoTime() + hooksBackoff.toNanos();
        Duration doubled = hooksBackoff.multipliedBy(2);
        hooksBackoff = doubled.compareTo(HOOKS_RETRY_MAX) > 0 ? HOOKS_RETRY_MAX : doubled;
    }

    private void pauseOrResume(KafkaConsumer<String, byte[]> kafka) {
        List<TopicPartition> pause = new ArrayList<>();
        List<TopicPartition> resume = new ArrayList<>();
        for (PartitionState partition : partitions.values()) {
            int unsettled = partition.offsets.inFlight();
            int buffered = partition.buffered.size();
            int held = partition.offsets.held();
            if (!partition.paused
                    && (partition.halted
                            || partition.awaitingHooks
                            || unsettled >= options.maxUnsettledPerPartition()
                            || buffered >= options.maxBufferedPerPartition()
                            || held >= 8 * options.maxUnsettledPerPartition())) {
                partition.paused = true;
                pause.add(partition.partition);
            } else if (partition.paused
                    && !partition.halted
                    && !partition.awaitingHooks
                    && unsettled <= options.maxUnsettledPerPartition() / 2
                    && buffered <= options.maxBufferedPerPartition() / 2
                    && held <= 4 * options.maxUnsettledPerPartition()) {
                partition.paused = false;
                resume.add(partition.partition);
            }
            blocked |= partition.paused;
        }
        if (!pause.isEmpty()) {
            kafka.pause(pause);
        }
        if (!resume.isEmpty()) {
            kafka.resume(resume);
        }
        if (!pause.isEmpty() || !resume.isEmpty()) {
            pausedView = Set.copyOf(kafka.paused());
        }
    }

    private void commitIfDue(KafkaConsumer<String, byte[]> kafka) {
        long now = System.nanoTime();
        if (now - nextCommitAt < 0) {
            return;
        }
        nextCommitAt = now + options.commitInterval().toNanos();
        Map<TopicPartition, OffsetAndMetadata> due = due(partitions.values());
        if (due.isEmpty()) {
            return;
        }
        kafka.commitAsync(due, (committed, error) -> {
            if (error != null) {
                log.debug("{}: commit of {} failed; retried at the next interval: {}", name, due, error.toString());
                due.keySet().forEach(tp -> {
                    PartitionState partition = partitions.get(tp);
                    if (partition != null) {
                        partition.lastCommitted = -1;
                    }
                });
            }
        });
    }

    private static Map<TopicPartition, OffsetAndMetadata> due(Collection<PartitionState> states) {
        Map<TopicPartition, OffsetAndMetadata> due = new HashMap<>();
        for (PartitionState partition : states) {
            long offset = partition.offsets.committable();
            if (offset >= 0 && offset != partition.lastCommitted) {
                due.put(partition.partition, new OffsetAndMetadata(offset));
                partition.lastCommitted = offset;
            }
        }
        return due;
    }

    /** Waits for what is in flight (at most the revoke timeout), commits it, then leaves the group. */
    private void closeGracefully(KafkaConsumer<String, byte[]> kafka) {
        List<PartitionState> all = new ArrayList<>(partitions.values());
        drain(all, "stopping");
        commitSync(kafka, all);
        all.forEach(partition -> partition.live = false);
        partitions.clear();
        try {
            kafka.close(CloseOptions.timeout(Duration.ofSeconds(5))
                    .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP));
        } catch (RuntimeException error) {
            log.warn("{}: closing the consumer failed: {}", name, error.toString());
        }
        consumer = null;
    }

    /** After a failure or a force: leaves the group without committing. */
    private void forceClose() {
        KafkaConsumer<String, byte[]> kafka = consumer;
        if (kafka == null) {
            return;
        }
        consumer = null;
        partitions.values().forEach(partition -> partition.live = false);
        partitions.clear();
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
        while (!forced && inFlight(states) > 0 && System.nanoTime() - deadline < 0) {
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
        if (left > 0 && !forced) {
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

    private void commitSync(KafkaConsumer<String, byte[]> kafka, List<PartitionState> states) {
        if (forced) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> due = due(states);
        if (due.isEmpty()) {
            return;
        }
        try {
            kafka.commitSync(due, options.startupTimeout());
        } catch (WakeupException woken) {
            if (!forced) {
                kafka.commitSync(due, options.startupTimeout());
            }
        } catch (RuntimeException error) {
            log.warn(
                    "{}: committing {} failed; the next owner reads from the last commit: {}",
                    name,
                    due,
                    error.toString());
        }
    }

    /** Rebalance callbacks run on the consumer thread, inside {@code poll} (or {@code close}). */
    private final class Rebalance implements ConsumerRebalanceListener {

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
            List<PartitionState> leaving = states(revoked);
            if (!leaving.isEmpty() && !forced) {
                drain(leaving, "revoked " + revoked);
                KafkaConsumer<String, byte[]> kafka = consumer;
                if (kafka != null) {
                    commitSync(kafka, leaving);
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
            Map<TopicPartition, Long> ends = endOffsets(assigned);
            for (TopicPartition partition : assigned) {
                partitions.put(partition, new PartitionState(partition, ends.getOrDefault(partition, Long.MAX_VALUE)));
            }
            assignedView = Set.copyOf(partitions.keySet());
            log.info("{}: assigned {}", name, assigned);
            if (runHooks(assigned)) { // the records are handed out only after this callback returned
                hooksRan(); // the hooks are the same for every assignment: partitions still waiting wait no more
            } else {
                for (PartitionState partition : states(assigned)) {
                    partition.awaitingHooks = true;
                }
                holdForHooks();
            }
        }

        private Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> assigned) {
            KafkaConsumer<String, byte[]> kafka = consumer;
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

        private List<PartitionState> states(Collection<TopicPartition> partitionsOf) {
            List<PartitionState> states = new ArrayList<>();
            for (TopicPartition partition : partitionsOf) {
                PartitionState state = partitions.get(partition);
                if (state != null) {
                    states.add(state);
                }
            }
            return states;
        }

        private void forget(Collection<TopicPartition> gone) {
            for (TopicPartition partition : gone) {
                PartitionState state = partitions.remove(partition);
                if (state != null) {
                    state.live = false;
                }
            }
            assignedView = Set.copyOf(partitions.keySet());
            KafkaConsumer<String, byte[]> kafka = consumer;
            pausedView = kafka == null ? Set.of() : Set.copyOf(kafka.paused());
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
