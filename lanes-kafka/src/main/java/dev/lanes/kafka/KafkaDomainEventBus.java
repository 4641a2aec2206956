package dev.lanes.kafka;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.dispatch.AggregateDispatcher;
import dev.lanes.dispatch.MessageExchange;
import dev.lanes.event.DomainEventBus;
import dev.lanes.event.OwnershipClaims;
import dev.lanes.event.OwnershipFence;
import dev.lanes.lifecycle.RuntimeComponent;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.processing.CompositeEventDispatcher;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A domain event bus on Kafka: each stream goes to its context's event topic with the aggregate id (and tenant) as the
 * key, so one aggregate's streams stay in one partition in publish order (the command side publishes an aggregate's
 * streams one at a time, in version order). Each event processor is a consumer group ({@link TopicNaming#group}{@code
 * (processor name)}) over all instances: every processor sees every stream of its types, each partition on one instance
 * at a time.
 *
 * <p><b>Projections</b>: a stream record names the instance whose sender may wait for its command's {@code PROJECTED}
 * stage; the instance whose projection handles it answers that sender through the reply topic, so a {@code PROJECTED}
 * wait ends whichever instance ran the projection (when this instance also has a {@link KafkaCommandBus}).
 *
 * <p><b>Publish</b> completes once the producer took the record, which fixes its place in its partition after every
 * stream sent before it (the idempotent producer keeps that order with several requests in flight), so a command's lane
 * goes on to the aggregate's next command without waiting for Kafka; the command's own record is committed only after
 * Kafka acknowledged its events (a crash in between leaves it to be read again, and its stored events published again).
 * A failed acknowledgement is logged at ERROR; the stream stays in the event store. Publish never waits for a consumer,
 * and the intake gate is always open (the topic is the buffer, consumers read at their own pace).
 *
 * <p><b>Delivery</b>: at least once, per aggregate in version order. After a crash or a rebalance a processor may see
 * streams it handled before, again in version order (a redelivery of a suffix), never a gap: keep a processor's effects
 * idempotent, e.g. by skipping versions at or below the last one it applied ({@link
 * dev.lanes.messaging.EventContext#version()}). A new group starts from the earliest record the topic still holds.
 *
 * <p><b>Payloads</b> go through the event codec of {@link KafkaBuses} (the store's, with its type names and upcasters).
 * A stream whose event the codec cannot decode is delivered with that payload kept encoded ({@link
 * dev.lanes.eventsourcing.UndecodedPayload}): its processors park it in their sequenced dead-letter queues, holding the
 * aggregate, instead of skipping it. Only a record whose envelope cannot be read goes to the {@link RecordParkingLot}.
 */
public final class KafkaDomainEventBus implements DomainEventBus {
    private final KafkaBuses kafka;
    private final Map<String, Consumer> consumers = new LinkedHashMap<>();
    private final List<Runnable> beforeDelivery = new CopyOnWriteArrayList<>();
    private final Map<String, OwnershipClaims> claims = new ConcurrentHashMap<>();

    private record Consumer(ConsumerLoop<DomainEventStream> loop, KafkaConsumerComponent component) {}

    KafkaDomainEventBus(KafkaBuses kafka) {
        this.kafka = kafka;
    }

    @Override
    public Mono<Void> publish(DomainEventStream stream) {
        return Mono.defer(() -> {
            Headers headers = RecordCodec.headers(RecordCodec.Kind.EVENTS);
            Replies replies = kafka.replies();
            if (replies != null) {
                headers.add(Replies.REPLY_TO_HEADER, replies.senderOf(stream.commandId()));
            }
            ProducerRecord<String, byte[]> record = new ProducerRecord<>(
                    kafka.options().topics().events(stream.aggregateId()),
                    null,
                    RecordCodec.key(stream.aggregateId()),
                    kafka.codec().encode(stream),
                    headers);
            return kafka.sendTracked(record, stream.commandId(), stream::toString);
        });
    }

    /** The streams of {@code namedAggregate} for {@code consumerGroup}; they flow once its {@link #consumer} runs. */
    @Override
    public Flux<MessageExchange<DomainEventStream>> receive(String consumerGroup, NamedAggregate namedAggregate) {
        return consumerOf(consumerGroup).loop().route(namedAggregate.materialize(), null);
    }

    /**
     * Runs {@code beforeDelivery} in every processor's consumer on this instance each time it is assigned partitions,
     * before it hands out any of their records; Kafka calls it only once the previous owner of those partitions drained
     * and committed them (unless they were lost). It runs on the consumer's thread, in the order registered. When one
     * throws, it is logged at WARN, naming the consumer and the partitions, and those partitions stay paused, handing
     * out nothing, while the hooks run again with a backoff (100 ms doubling to 5 s) until they all pass; the
     * consumer's other partitions go on.
     */
    @Override
    public void onAssignment(Runnable beforeDelivery) {
        this.beforeDelivery.add(Objects.requireNonNull(beforeDelivery, "beforeDelivery"));
    }

    /**
     * Runs {@code claims} for each partition the consumer of the processor named {@code consumerGroup} is assigned on
     * this instance, with this instance's id as the owner and the processor's Kafka group ({@link TopicNaming#group}),
     * on the consumer's thread, before the {@link #onAssignment} hooks; each record of that assignment carries the fence
     * it returned ({@code OwnershipFence.of(exchange)}). A claim that throws holds the partition, as a failing hook
     * does, until the claims and hooks pass. A record that a lane hands back with {@link
     * dev.lanes.event.OwnershipLostException} (another instance claimed the partition since) is not read again here:
     * the partition hands out nothing more until Kafka takes it back.
     */
    @Override
    public void claimAssignments(String consumerGroup, OwnershipClaims claims) {
        this.claims.put(Checks.notBlank(consumerGroup, "consumerGroup"), Objects.requireNonNull(claims, "claims"));
    }

    private OwnershipFence claim(String processor, String group, TopicPartition partition) {
        OwnershipClaims registered = claims.get(processor);
        return registered == null
                ? OwnershipFence.NONE
                : registered.claim(kafka.options().instanceId(), group, partition.topic(), partition.partition());
    }

    /** The consumer group member of {@code processor} on this instance, created on the first call. */
    public KafkaConsumerComponent consumer(String processor) {
        return consumerOf(processor).component();
    }

    /**
     * The consumers of every processor of {@code events}, in order, with the types each will receive (so that start
     * checks their topics): register them before the dispatcher, as {@link KafkaBuses#components} does.
     */
    public List<RuntimeComponent> consumersOf(CompositeEventDispatcher events) {
        List<RuntimeComponent> components = new ArrayList<>();
        for (AggregateDispatcher<?> dispatcher : events.dispatchers()) {
            Consumer consumer = consumerOf(dispatcher.name());
            consumer.loop().expect(dispatcher.namedAggregate());
            if (!components.contains(consumer.component())) {
                components.add(consumer.component());
            }
        }
        return components;
    }

    /** The consumer group members created so far, one per processor that received (or was given to consumersOf). */
    synchronized List<KafkaConsumerComponent> consumers() {
        List<KafkaConsumerComponent> components = new ArrayList<>();
        consumers.values().forEach(consumer -> components.add(consumer.component()));
        return components;
    }

    private synchronized Consumer consumerOf(String processor) {
        return consumers.computeIfAbsent(processor, this::create);
    }

    private Consumer create(String processor) {
        KafkaOptions options = kafka.options();
        String group = options.topics().group(Checks.notBlank(processor, "processor"));
        String name = "KafkaEventConsumer[" + group + ", " + options.instanceId() + "]";
        ConsumerLoop<DomainEventStream> loop = new ConsumerLoop<>(
                name,
                group,
                options.topics()::events,
                options,
                new Reader(processor),
                kafka.parkingLot(),
                beforeDelivery,
                partition -> claim(processor, group, partition));
        return new Consumer(loop, new KafkaConsumerComponent(name, loop, options));
    }

    /** {@code kafka}: traced, each publication is a produce span. */
    @Override
    public String messagingSystem() {
        return "kafka";
    }

    @Override
    public String toString() {
        return "KafkaDomainEventBus[" + kafka.options().instanceId() + "]";
    }

    /** Reads the streams of one processor; tells the reply channel whose projection wait a stream may end. */
    private final class Reader implements MessageReader<DomainEventStream> {
        private final String processor;

        Reader(String processor) {
            this.processor = processor;
        }

        @Override
        public DomainEventStream decode(ConsumerRecord<String, byte[]> record) {
            DomainEventStream stream = kafka.codec().decodeStream(record.headers(), record.value());
            Replies replies = kafka.replies();
            if (replies != null) {
                replies.received(processor, stream, record.headers());
            }
            return stream;
        }

        @Override
        public void settled(DomainEventStream message) {
            Replies replies = kafka.replies();
            if (replies != null) {
                replies.left(processor, message);
            }
        }

        @Override
        public AggregateId aggregateId(DomainEventStream message) {
            return message.aggregateId();
        }

        @Override
        public boolean followUp(DomainEventStream message) {
            return false;
        }

        @Override
        public boolean parksUnroutable() {
            return false;
        }
    }
}
