package dev.lanes.kafka;

import dev.lanes.api.LanesException;
import dev.lanes.command.CommandResults;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.modeling.CommandRejectedException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers senders on other instances. A command record carries its sender's instance id ({@value #REPLY_TO_HEADER});
 * while the command is in a lane here, its {@link CommandResults} forwards the outcome (processed or failed) to this
 * object, which sends it to the reply topic's partition of that instance. Each instance reads its own partition from
 * the end (it only waits for commands it sends after it started) and reports what it reads to its own results, through
 * the {@link CommandResults.RemoteOutcomes} they gave this bus when it connected ({@link #answerTo}).
 *
 * <p>Projections: an event stream record carries the same header, naming the instance whose sender may wait for the
 * command's {@code PROJECTED} stage (see {@link #senderOf}); an instance whose projection handled the stream, for a
 * sender elsewhere, sends that instance a {@link Reply#projected} answer, which counts there as that projection's
 * report.
 *
 * <p>A command stopped here is not answered: it is redelivered to another instance, which answers. A sender whose
 * wait ended meanwhile ignores the late answer.
 */
final class Replies implements CommandResults.UntrackedOutcomes {
    static final String REPLY_TO_HEADER = "lanes.reply-to";
    private static final Logger log = LoggerFactory.getLogger(Replies.class);

    private final KafkaBuses kafka;
    private volatile CommandResults.@Nullable RemoteOutcomes answers;
    private final String instance;
    private final ConcurrentHashMap<String, String> senders = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<ProjectionKey, Waiting> projectionSenders = new ConcurrentHashMap<>();

    /** A stream in the lanes of one processor here, by the command it came from. */
    private record ProjectionKey(String processor, String commandId) {}

    /** The instance that sent the stream's command, and the stream (to name the command in the answer). */
    private record Waiting(String sender, DomainEventStream stream) {}

    private volatile int partitions = 1;
    private volatile @Nullable KafkaConsumer<String, byte[]> consumer;
    private volatile boolean stopped;
    private @Nullable Thread thread;

    Replies(KafkaBuses kafka) {
        this.kafka = kafka;
        this.instance = kafka.options().instanceId();
    }

    /** Where the answers read for this instance go: the results this bus connected to; set before reading starts. */
    void answerTo(CommandResults.RemoteOutcomes answers) {
        this.answers = answers;
    }

    /** The reply-to header value of this instance's commands. */
    byte[] replyTo() {
        return instance.getBytes(StandardCharsets.UTF_8);
    }

    // ---------------------------------------------------------------- the handling instance

    /** A command record reached a lane here; remembers who waits for it, if that is another instance. */
    void received(CommandMessage command, Headers headers) {
        String sender = RecordCodec.header(headers, REPLY_TO_HEADER);
        if (sender != null && !sender.equals(instance)) {
            senders.put(command.messageId(), sender);
        }
    }

    /** The command left its lane: nobody is answered any more from here. */
    void left(CommandMessage command) {
        senders.remove(command.messageId());
    }

    @Override
    public void processed(CommandMessage command, int version, List<Object> events) {
        String to = senders.remove(command.messageId());
        if (to != null) {
            send(Reply.outcome(to, instance, command, version, events, null));
        }
    }

    @Override
    public void storedEarlier(CommandMessage command, String storedBy, int version, List<Object> events) {
        String to = senders.remove(command.messageId());
        if (to != null) {
            send(Reply.storedEarlier(to, instance, command, storedBy, version, events));
        }
    }

    @Override
    public void failed(CommandMessage command, Throwable error) {
        String to = senders.remove(command.messageId());
        if (to != null) {
            boolean recoverable = error instanceof LanesException lanes && lanes.isRecoverable();
            Reply.Failure failure = new Reply.Failure(
                    error.getClass().getName(),
                    String.valueOf(error.getMessage()),
                    recoverable,
                    error instanceof CommandRejectedException);
            send(Reply.outcome(to, instance, command, 0, List.of(), failure));
        }
    }

    /**
     * The instance whose senders wait for the command of {@code commandId}: the sender that the command record named,
     * while the command is in a lane here (as it is when its events are published), else this instance.
     */
    byte[] senderOf(String commandId) {
        return senders.getOrDefault(commandId, instance).getBytes(StandardCharsets.UTF_8);
    }

    // ---------------------------------------------------------------- an instance whose projection handles events

    /**
     * A stream reached the lanes of {@code processor} here; remembers the instance whose sender may wait for its
     * projection (the stream record's {@value #REPLY_TO_HEADER}), if that is another one.
     */
    void received(String processor, DomainEventStream stream, Headers headers) {
        String sender = RecordCodec.header(headers, REPLY_TO_HEADER);
        if (sender != null && !sender.equals(instance)) {
            projectionSenders.put(new ProjectionKey(processor, stream.commandId()), new Waiting(sender, stream));
        }
    }

    /** The stream left the lanes of {@code processor}: its projection reported (or never will, for a handler). */
    void left(String processor, DomainEventStream stream) {
        projectionSenders.remove(new ProjectionKey(processor, stream.commandId()));
    }

    @Override
    public void projected(String commandId, String projection) {
        Waiting waiting = projectionSenders.remove(new ProjectionKey(projection, commandId));
        if (waiting != null) {
            send(Reply.projected(waiting.sender(), instance, waiting.stream(), projection));
        }
    }

    private void send(Reply reply) {
        try {
            ProducerRecord<String, byte[]> record = new ProducerRecord<>(
                    kafka.options().topics().replies(),
                    partitionOf(reply.to()),
                    reply.to(),
                    kafka.codec().encode(reply),
                    RecordCodec.headers(RecordCodec.Kind.REPLY));
            kafka.producer().send(record, (metadata, error) -> {
                if (error != null) {
                    log.warn("Answer to {} about {} was not sent: {}", reply.to(), reply.commandId(), error.toString());
                }
            });
        } catch (RuntimeException error) {
            log.warn("Answer to {} about {} was not sent: {}", reply.to(), reply.commandId(), error.toString());
        }
    }

    private int partitionOf(String instanceId) {
        return Math.floorMod(instanceId.hashCode(), partitions);
    }

    // ---------------------------------------------------------------- the sending instance

    /** Positions this instance's reply consumer at the end of its partition (blocking, bounded). */
    void prepare(int replyPartitions) {
        this.partitions = replyPartitions;
        KafkaOptions options = kafka.options();
        Properties properties = new Properties();
        properties.putAll(options.clientProperties());
        properties.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, options.bootstrapServers());
        properties.put(ConsumerConfig.CLIENT_ID_CONFIG, instance + "-replies");
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        properties.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        properties.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        KafkaConsumer<String, byte[]> created = new KafkaConsumer<>(properties);
        TopicPartition own = new TopicPartition(options.topics().replies(), partitionOf(instance));
        try {
            created.assign(List.of(own));
            created.seekToEnd(List.of(own));
            created.position(own, options.startupTimeout());
        } catch (RuntimeException error) {
            created.close(Duration.ZERO);
            throw KafkaStartupException.unreachable(
                    "Replies of " + instance, options.bootstrapServers(), options.startupTimeout(), error);
        }
        consumer = created;
    }

    void start() {
        Thread reader = new Thread(this::read, "lanes-kafka-replies-" + instance);
        reader.setDaemon(true);
        thread = reader;
        reader.start();
    }

    private void read() {
        KafkaConsumer<String, byte[]> reading = consumer;
        if (reading == null) {
            return;
        }
        try {
            while (!stopped) {
                for (ConsumerRecord<String, byte[]> record :
                        reading.poll(kafka.options().pollTimeout())) {
                    apply(record);
                }
            }
        } catch (WakeupException woken) {
            // stopping
        } catch (RuntimeException error) {
            log.error("Replies of {} stopped; senders here wait until their timeout", instance, error);
        } finally {
            reading.close(Duration.ZERO);
        }
    }

    private void apply(ConsumerRecord<String, byte[]> record) {
        String to = record.key();
        if (to != null && !to.equals(instance)) {
            return; // keyed by its addressee: another instance whose id shares the partition, not decoded here
        }
        Reply reply;
        try {
            reply = kafka.codec().decodeReply(record.headers(), record.value());
        } catch (RuntimeException error) {
            log.warn(
                    "Unreadable answer at {}-{}@{}: {}",
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    error.toString());
            return;
        }
        if (!reply.to().equals(instance)) {
            return; // another instance whose id shares the partition
        }
        // results find a wait by message id (and its projections by aggregate type): the answer stands for the command
        CommandMessage command = new CommandMessage(
                reply.commandId(), reply.aggregateId(), reply.requestId(), reply, Instant.EPOCH, Map.of());
        CommandResults.RemoteOutcomes target = answers;
        if (target == null) {
            log.warn("{} read an answer for {} before its results connected; dropped", this, command);
            return;
        }
        String projection = reply.projection();
        Reply.Failure failure = reply.failure();
        if (projection != null) {
            target.projected(reply.commandId(), projection);
        } else if (failure == null) {
            String storedBy = reply.storedBy();
            if (storedBy == null) {
                target.processed(command, reply.version(), reply.events());
            } else {
                target.storedEarlier(command, storedBy, reply.version(), reply.events());
            }
        } else {
            target.failed(command, remoteFailure(failure, reply.from()));
        }
    }

    /** A refusal by a business rule stays a {@link CommandRejectedException}, so sagas can tell it from a fault. */
    private static RuntimeException remoteFailure(Reply.Failure failure, String from) {
        return failure.rejected()
                ? new CommandRejectedRemotelyException(failure.type(), failure.message(), from)
                : new CommandFailedRemotelyException(failure.type(), failure.message(), from, failure.recoverable());
    }

    void stop() {
        stopped = true;
        KafkaConsumer<String, byte[]> reading = consumer;
        Thread reader = thread;
        if (reading != null) {
            if (reader == null) {
                reading.close(Duration.ZERO);
            } else {
                reading.wakeup();
            }
        }
    }

    @Override
    public String toString() {
        return "KafkaReplies[" + instance + "]";
    }
}
