package dev.lanes.kafka;

import dev.lanes.Lanes;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.command.CommandResults;
import dev.lanes.command.lane.CommandDispatcher;
import dev.lanes.eventsourcing.PayloadCodec;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.lifecycle.RuntimeContext;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.processing.CompositeEventDispatcher;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * One instance's connection to Kafka: the producer its buses share, the reply channel to senders on other instances,
 * and the factory of its {@link KafkaCommandBus} and {@link KafkaDomainEventBus}. It is a runtime component of its own:
 * register it first ({@link #applyTo} or {@link #components} put everything in order), so that it is stopped last,
 * after the consumers committed.
 *
 * <pre>{@code
 * // the store's serializer: events travel under the type names and revisions the store keeps
 * KafkaBuses kafka = KafkaBuses.create(KafkaOptions.of("broker:9092").withInstanceId("orders-1"), serializer);
 * try (Lanes lanes = kafka.applyTo(Lanes.builder())
 *         .aggregate(Bank.definition())
 *         .processor(balances.processor())
 *         .eventStore(postgresStore)
 *         .build()
 *         .start()) {
 *     lanes.gateway().send(Bank.account("acc-1"), new Deposit(100), WaitStage.PROCESSED).block();
 * }
 * }</pre>
 *
 * <p>Without the builder, wire the parts yourself:
 *
 * <pre>{@code
 * KafkaBuses kafka = KafkaBuses.create(KafkaOptions.of("broker:9092"));
 * CommandResults results = new CommandResults();
 * KafkaCommandBus commandBus = kafka.commandBus(results);
 * KafkaDomainEventBus eventBus = kafka.eventBus();
 * CommandDispatcher commands = CommandDispatcher.builder(commandBus, store, eventBus, results)
 *         .register(definition).settings(KafkaBuses.COMMAND_SETTINGS).build();
 * CompositeEventDispatcher events = CompositeEventDispatcher.builder("events", eventBus).processor(p).build();
 * LanesRuntime runtime = new LanesRuntime(kafka.components(commands, events), deadline, quiet);
 * }</pre>
 *
 * <p>Lifecycle: {@code prepare} checks the broker and the topics (within the startup timeout, one error naming the
 * servers), creates the producer and positions the reply reader; graceful stop flushes the producer and closes it; a
 * force closes it without waiting.
 */
public final class KafkaBuses implements RuntimeComponent {
    private static final Logger log = LoggerFactory.getLogger(KafkaBuses.class);
    /**
     * The command dispatcher's lane settings for a Kafka bus: its defaults, but a full lane pauses its partition
     * instead of handing records back (a record handed back is read again, and a later one of the same aggregate could
     * overtake it).
     */
    public static final dev.lanes.dispatch.LaneSettings COMMAND_SETTINGS =
            CommandDispatcher.DEFAULT_SETTINGS.withOverflow(dev.lanes.dispatch.LaneSettings.Overflow.PAUSE);

    private final KafkaOptions options;
    private final RecordCodec codec;
    private final RecordParkingLot parkingLot;
    private final PendingAcks pendingAcks = new PendingAcks();
    private final AtomicReference<@Nullable Producer<String, byte[]>> producer = new AtomicReference<>();
    private final Mono<Void> gracefulStop;
    private volatile @Nullable KafkaCommandBus commandBus;
    private volatile @Nullable KafkaDomainEventBus eventBus;
    private volatile boolean stopped;
    private @Nullable KafkaConsumers consumers;

    /** @param parkingLot where unreadable records go; {@code null}: the {@link ParkingTopic} of this instance */
    private KafkaBuses(KafkaOptions options, RecordCodec codec, @Nullable RecordParkingLot parkingLot) {
        this.options = Objects.requireNonNull(options, "options");
        this.codec = codec;
        this.parkingLot = parkingLot == null ? new ParkingTopic(this) : parkingLot;
        this.gracefulStop = Mono.<Void>fromRunnable(this::closeGracefully)
                .subscribeOn(Schedulers.boundedElastic())
                .cache();
    }

    /**
     * JSON payloads through Jackson, under class names ({@link JacksonPayloadSerializer} without registered types);
     * records that cannot be read at all parked on the parked-records topic ({@link TopicNaming#parkedRecords()},
     * created with the others when topics are created), acknowledged before the partition moves on past them.
     */
    public static KafkaBuses create(KafkaOptions options) {
        return new KafkaBuses(options, new RecordCodec(new JacksonPayloadSerializer()), null);
    }

    /**
     * Event payloads through {@code events}: give it the codec the event store uses (the PostgreSQL store's {@code
     * JacksonEventSerializer}, or a {@link JacksonPayloadSerializer} with the same {@code EventTypes}), so that events
     * travel under the same stable type names and revisions as they are stored, and are read through the same
     * upcasters. Commands through a {@link JacksonPayloadSerializer} (class names); unreadable records parked on the
     * parked-records topic, as {@link #create(KafkaOptions)} does.
     */
    public static KafkaBuses create(KafkaOptions options, PayloadCodec events) {
        return new KafkaBuses(options, new RecordCodec(new JacksonPayloadSerializer(), events), null);
    }

    /**
     * Commands and events through {@code serializer}: events through it as a {@link PayloadCodec} when it is one (a
     * {@link JacksonPayloadSerializer}), else under its type names, unrevised.
     */
    public static KafkaBuses create(KafkaOptions options, PayloadSerializer serializer, RecordParkingLot parkingLot) {
        return new KafkaBuses(options, new RecordCodec(serializer), parkingLot);
    }

    /** Commands (and the type names of their payloads) through {@code serializer}, event payloads through {@code events}. */
    public static KafkaBuses create(
            KafkaOptions options, PayloadSerializer serializer, PayloadCodec events, RecordParkingLot parkingLot) {
        return new KafkaBuses(options, new RecordCodec(serializer, events), parkingLot);
    }

    public KafkaOptions options() {
        return options;
    }

    /** The codec event payloads are sent and received with (see {@link #create(KafkaOptions, PayloadCodec)}). */
    public PayloadCodec eventCodec() {
        return codec.events();
    }

    public RecordParkingLot parkingLot() {
        return parkingLot;
    }

    /**
     * The command bus of this instance, created on the first call; its senders' answers come back to {@code results}
     * (also from other instances), and the outcomes of commands sent from other instances are forwarded from it.
     *
     * @throws IllegalStateException if it was created before with other results
     */
    public synchronized KafkaCommandBus commandBus(CommandResults results) {
        KafkaCommandBus existing = commandBus;
        if (existing != null) {
            if (existing.results() != results) {
                throw new IllegalStateException(this + " already has a command bus, with other CommandResults");
            }
            return existing;
        }
        KafkaCommandBus created = new KafkaCommandBus(this, results);
        commandBus = created;
        return created;
    }

    /** The event bus of this instance, created on the first call. */
    public synchronized KafkaDomainEventBus eventBus() {
        KafkaDomainEventBus existing = eventBus;
        if (existing == null) {
            existing = new KafkaDomainEventBus(this);
            eventBus = existing;
        }
        return existing;
    }

    /**
     * Wires this instance's Kafka buses into a service: its {@link #commandBus command bus} (made with the builder's
     * {@link CommandResults}), its {@link #eventBus() event bus}, {@link #COMMAND_SETTINGS} for the command dispatcher,
     * and two runtime components before the dispatchers: this connection, then the consumers of the command
     * dispatcher and of every processor (one consumer group each). Call it once per {@code KafkaBuses}; settings made
     * on the builder afterwards win (keep the {@code PAUSE} overflow of the command settings).
     *
     * @return {@code builder}
     * @throws IllegalStateException if this connection was wired before
     */
    public Lanes.Builder applyTo(Lanes.Builder builder) {
        Objects.requireNonNull(builder, "builder");
        KafkaConsumers created = new KafkaConsumers(this);
        synchronized (this) {
            if (consumers != null) {
                throw new IllegalStateException(
                        this + " is wired into a service already: make one KafkaBuses per" + " Lanes instance");
            }
            consumers = created;
        }
        return builder.commandBus(this::commandBus)
                .eventBus(eventBus())
                .commandSettings(COMMAND_SETTINGS)
                .component(this)
                .component(created);
    }

    /**
     * The runtime components of an instance in their order: this connection, the command consumer, the command
     * dispatcher, then for each event dispatcher its processors' consumers and the dispatcher. The runtime stops them
     * in reverse: each dispatcher drains before its consumers commit, and the connection closes last.
     */
    public List<RuntimeComponent> components(
            @Nullable CommandDispatcher commands, CompositeEventDispatcher... eventDispatchers) {
        List<RuntimeComponent> components = new ArrayList<>();
        components.add(this);
        if (commands != null) {
            KafkaCommandBus bus = commandBus;
            if (bus == null) {
                throw new IllegalStateException(this + ": build the command dispatcher on commandBus(results)");
            }
            components.add(bus.consumer());
            components.add(commands);
        }
        for (CompositeEventDispatcher events : eventDispatchers) {
            components.addAll(eventBus().consumersOf(events));
            components.add(events);
        }
        return components;
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public String name() {
        return "KafkaBuses[" + options.instanceId() + "]";
    }

    @Override
    public Mono<Void> prepare(RuntimeContext context) {
        return Mono.<Void>fromRunnable(this::connect).subscribeOn(Schedulers.boundedElastic());
    }

    private void connect() {
        Set<String> topics = new TreeSet<>();
        topics.add(options.topics().replies());
        if (parkingLot instanceof ParkingTopic parking) {
            topics.add(parking.topic());
        }
        KafkaCommandBus commands = commandBus;
        if (commands != null) {
            for (MaterializedNamedAggregate type : commands.types()) {
                topics.add(options.topics().commands(type));
                topics.add(options.topics().events(type));
            }
        }
        Map<String, Integer> partitions = Topics.require(name(), topics, options);
        Producer<String, byte[]> created = new KafkaProducer<>(producerProperties());
        if (!producer.compareAndSet(null, created)) {
            created.close(Duration.ZERO);
            throw new IllegalStateException(name() + " was prepared twice");
        }
        if (commands != null) {
            commands.replies().prepare(partitions.getOrDefault(options.topics().replies(), 1));
        }
    }

    private Properties producerProperties() {
        Properties properties = new Properties();
        properties.putAll(options.clientProperties());
        properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
        properties.put(ProducerConfig.CLIENT_ID_CONFIG, options.instanceId() + "-producer");
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        properties.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "2");
        properties.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
        if (options.topicCreation() != null) {
            // Topics made at start are written to at once: a broker up to 4.3 that has not opened a new partition
            // fails a first batch while appending a pipelined later one, and the first one's retries are then
            // refused as out of order until its delivery timeout (KAFKA-15591). One request in flight per connection
            // keeps a later batch behind the first; a client property overrides it.
            properties.putIfAbsent(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        }
        properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return properties;
    }

    @Override
    public void start() {
        KafkaCommandBus commands = commandBus;
        if (commands != null) {
            commands.replies().start();
        }
    }

    @Override
    public void quiesce() {}

    /** Flushes what the producer holds, stops the reply reader and closes the producer. */
    @Override
    public Mono<Void> stopGracefully() {
        return gracefulStop;
    }

    private void closeGracefully() {
        stopped = true;
        KafkaCommandBus commands = commandBus;
        if (commands != null) {
            commands.replies().stop();
        }
        Producer<String, byte[]> current = producer.getAndSet(null);
        if (current != null) {
            current.flush();
            current.close(Duration.ofSeconds(5));
        }
    }

    @Override
    public void forceStop() {
        stopped = true;
        KafkaCommandBus commands = commandBus;
        if (commands != null) {
            commands.replies().stop();
        }
        Producer<String, byte[]> current = producer.getAndSet(null);
        if (current != null) {
            Schedulers.boundedElastic().schedule(() -> current.close(Duration.ZERO));
        }
    }

    /**
     * The bytes {@code command} takes as a record on its command topic: key, value and headers, as {@link
     * KafkaCommandBus#send} writes it. For a raw producer baseline that sends records of the same size; needs no
     * connection.
     */
    public int commandRecordBytes(CommandMessage command) {
        int bytes = RecordCodec.key(command.aggregateId()).getBytes(StandardCharsets.UTF_8).length
                + codec.encode(command).length;
        Headers headers = RecordCodec.headers(RecordCodec.Kind.COMMAND);
        headers.add(Replies.REPLY_TO_HEADER, options.instanceId().getBytes(StandardCharsets.UTF_8));
        for (Header header : headers) {
            bytes += header.key().getBytes(StandardCharsets.UTF_8).length + header.value().length;
        }
        return bytes;
    }

    // ---------------------------------------------------------------- for the buses

    /** The reply channel of the command bus, once it exists. */
    @Nullable
    Replies replies() {
        KafkaCommandBus bus = commandBus;
        return bus == null ? null : bus.replies();
    }

    /** The command consumer, once the command bus exists. */
    @Nullable
    KafkaConsumerComponent commandConsumer() {
        KafkaCommandBus bus = commandBus;
        return bus == null ? null : bus.consumer();
    }

    RecordCodec codec() {
        return codec;
    }

    Producer<String, byte[]> producer() {
        Producer<String, byte[]> current = producer.get();
        if (current == null) {
            throw new IllegalStateException(name()
                    + (stopped
                            ? " is stopped"
                            : " is not started: register it in"
                                    + " the runtime (KafkaBuses.components) and start the runtime before sending"));
        }
        return current;
    }

    /**
     * Sends a record; completes when Kafka acknowledged it (all in-sync replicas), on a Reactor parallel thread (never
     * on the producer's network thread).
     */
    Mono<Void> send(ProducerRecord<String, byte[]> record, Supplier<String> what) {
        return Mono.<Void>create(sink -> {
                    Producer<String, byte[]> current;
                    try {
                        current = producer();
                    } catch (IllegalStateException notRunning) {
                        sink.error(notRunning);
                        return;
                    }
                    try {
                        current.send(record, (metadata, error) -> {
                            if (error == null) {
                                sink.success();
                            } else {
                                sink.error(new KafkaSendException(
                                        name() + " could not send " + what.get() + " to " + record.topic() + ": "
                                                + error,
                                        error));
                            }
                        });
                    } catch (RuntimeException error) {
                        sink.error(new KafkaSendException(
                                name() + " could not send " + what.get() + " to " + record.topic() + ": " + error,
                                error));
                    }
                })
                .publishOn(Schedulers.parallel());
    }

    /**
     * Sends an event record of the command {@code commandId} without waiting for Kafka: completes (at subscription, on
     * the caller's thread) once the producer took it, which fixes its place in its partition after every record sent
     * before it. The acknowledgement is tracked in {@link #pendingAcks()}: the command's record is settled only after
     * it. A failed acknowledgement is logged at ERROR (the stream stays in the event store), as a failed publication
     * always was.
     */
    Mono<Void> sendTracked(ProducerRecord<String, byte[]> record, String commandId, Supplier<String> what) {
        return Mono.fromRunnable(() -> {
            Producer<String, byte[]> current = producer();
            pendingAcks.sent(commandId);
            try {
                current.send(record, (metadata, error) -> {
                    if (error != null) {
                        log.error(
                                "{} was appended but could not be published to {}; it stays in the event store",
                                what.get(),
                                record.topic(),
                                error);
                    }
                    pendingAcks.acked(commandId);
                });
            } catch (RuntimeException error) {
                pendingAcks.acked(commandId);
                throw new KafkaSendException(
                        name() + " could not send " + what.get() + " to " + record.topic() + ": " + error, error);
            }
        });
    }

    /** The event records sent by {@link #sendTracked} that Kafka has not acknowledged yet, by command. */
    PendingAcks pendingAcks() {
        return pendingAcks;
    }

    @Override
    public String toString() {
        return name();
    }
}
