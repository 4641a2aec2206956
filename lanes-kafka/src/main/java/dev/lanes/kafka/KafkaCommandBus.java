package dev.lanes.kafka;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.api.NamedAggregate;
import dev.lanes.command.CommandBus;
import dev.lanes.command.CommandResults;
import dev.lanes.command.UnknownAggregateTypeException;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.event.OwnershipFence;
import dev.lanes.flow.IntakeGate;
import dev.lanes.messaging.CommandMessage;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A command bus on Kafka: commands go to their context's command topic with the aggregate id (and tenant) as the key,
 * so one aggregate's commands stay in one partition, in send order; the command dispatchers of all instances are one
 * consumer group ({@link TopicNaming#group}{@code ("commands")}), so each partition is handled by one instance at a
 * time.
 *
 * <p><b>Send</b> completes when Kafka acknowledged the record: from then on the command is not lost (at-least-once).
 * A sender waiting for {@code PROCESSED} is answered by whichever instance handled the command (see {@link
 * CommandResults#forwardUntracked}), through the reply topic; {@code SENT} is answered with it too. {@code PROJECTED}
 * counts the projections of the sender's own instance's processors, wherever they ran: the instance whose projection
 * handled the command's events answers through the same reply topic.
 *
 * <p><b>Delivery</b>: at least once. A command's record is committed only once it was handled (or parked) and Kafka
 * acknowledged the events it published (its lane does not wait for that acknowledgement: see {@link
 * KafkaDomainEventBus}). After a crash or a rebalance a command may be handled again; the command side asks
 * the event store for its request id first ({@link MessageExchange#mayBeRedelivered()}), so it is stored once and
 * answered with what it stored. A command the dispatcher hands back while stopping stays uncommitted for the next
 * owner; a stopped instance's senders wait for the answer from the instance that takes over.
 *
 * <p><b>Intake</b>: new commands are taken while the dispatcher's intake gate is open and the runtime is not stopping;
 * follow-ups (a saga's commands) always, until the consumer is quiesced. A partition waits at the first command that may
 * not be taken; nothing is refused for room (the topic is the buffer), so {@link
 * dev.lanes.command.CommandBusOverloadedException} never comes from this bus.
 */
public final class KafkaCommandBus implements CommandBus {
    private final KafkaBuses kafka;
    private final CommandResults results;
    private final Replies replies;
    private final Set<MaterializedNamedAggregate> types = ConcurrentHashMap.newKeySet();
    private final ConsumerLoop<CommandMessage> loop;
    private final KafkaConsumerComponent consumer;

    KafkaCommandBus(KafkaBuses kafka, CommandResults results) {
        this.kafka = kafka;
        this.results = Objects.requireNonNull(results, "results");
        this.replies = new Replies(kafka);
        replies.answerTo(results.forwardUntracked(replies));
        KafkaOptions options = kafka.options();
        String group = options.topics().group("commands");
        String name = "KafkaCommandConsumer[" + group + ", " + options.instanceId() + "]";
        this.loop = new ConsumerLoop<>(
                name,
                group,
                options.topics()::commands,
                options,
                new Reader(),
                kafka.parkingLot(),
                List.of(),
                partition -> OwnershipFence.NONE);
        this.consumer = new KafkaConsumerComponent(name, loop, options);
    }

    /**
     * Declares types this instance sends commands to without receiving them (a sender-only instance); a type is
     * declared by {@link #receive} too. Commands for undeclared types are refused.
     */
    public KafkaCommandBus declare(NamedAggregate... sendsTo) {
        for (NamedAggregate type : sendsTo) {
            types.add(type.materialize());
        }
        return this;
    }

    @Override
    public Mono<Void> send(CommandMessage command) {
        return Mono.defer(() -> {
            MaterializedNamedAggregate type = command.aggregateId().materialize();
            if (!types.contains(type)) {
                return Mono.error(UnknownAggregateTypeException.of(toString(), type, types));
            }
            Headers headers = RecordCodec.headers(RecordCodec.Kind.COMMAND);
            headers.add(Replies.REPLY_TO_HEADER, replies.replyTo());
            ProducerRecord<String, byte[]> record = new ProducerRecord<>(
                    kafka.options().topics().commands(type),
                    null,
                    RecordCodec.key(command.aggregateId()),
                    kafka.codec().encode(command),
                    headers);
            return kafka.send(record, command::toString);
        });
    }

    @Override
    public Flux<MessageExchange<CommandMessage>> receive(NamedAggregate namedAggregate) {
        return receive(namedAggregate, null);
    }

    /**
     * Declares the receiver of {@code namedAggregate} on this instance; its commands flow once the {@link #consumer()}
     * runs and the receiver requests them. New commands are held back while {@code gate} is not open.
     */
    @Override
    public Flux<MessageExchange<CommandMessage>> receive(NamedAggregate namedAggregate, @Nullable IntakeGate gate) {
        MaterializedNamedAggregate type = namedAggregate.materialize();
        Flux<MessageExchange<CommandMessage>> flux = loop.route(type, gate);
        types.add(type);
        return flux;
    }

    /** The consumer group member that feeds this instance's command dispatcher: register it before the dispatcher. */
    public KafkaConsumerComponent consumer() {
        return consumer;
    }

    CommandResults results() {
        return results;
    }

    Replies replies() {
        return replies;
    }

    Set<MaterializedNamedAggregate> types() {
        return Set.copyOf(types);
    }

    @Override
    public String toString() {
        return "KafkaCommandBus[" + kafka.options().instanceId() + "]";
    }

    private final class Reader implements MessageReader<CommandMessage> {
        @Override
        public CommandMessage decode(ConsumerRecord<String, byte[]> record) {
            CommandMessage command = kafka.codec().decodeCommand(record.headers(), record.value());
            replies.received(command, record.headers());
            return command;
        }

        @Override
        public AggregateId aggregateId(CommandMessage message) {
            return message.aggregateId();
        }

        @Override
        public boolean followUp(CommandMessage message) {
            return message.isFollowUp();
        }

        @Override
        public boolean parksUnroutable() {
            return true;
        }

        @Override
        public void settled(CommandMessage message) {
            replies.left(message);
        }

        /** A command is committed only past the acknowledgement of the events it published. */
        @Override
        public void whenSettleable(CommandMessage message, Runnable settle) {
            kafka.pendingAcks().afterAcks(message.messageId(), settle);
        }
    }
}
