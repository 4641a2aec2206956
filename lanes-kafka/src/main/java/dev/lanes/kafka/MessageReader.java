package dev.lanes.kafka;

import dev.lanes.api.AggregateId;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * How a consumer reads its records: decoding, the aggregate (which decides the route and the lane), and whether a
 * message follows up work already admitted (a saga's command: taken even while new work is paused).
 *
 * @param <M> the message type
 */
interface MessageReader<M> {

    /** Throws when the record cannot be read; the consumer parks it. */
    M decode(ConsumerRecord<String, byte[]> record);

    AggregateId aggregateId(M message);

    boolean followUp(M message);

    /**
     * Whether a record of a type no receiver here takes is parked (commands: every instance of the group should serve
     * it) or passed over in silence (events: the topic carries types that other processors read).
     */
    boolean parksUnroutable();

    /** The message left its lane (handled, parked or handed back). Any thread; must not block. */
    default void settled(M message) {}

    /**
     * Runs {@code settle} once the message's record may be committed: at once, or (commands) once Kafka acknowledged
     * the events it published. Any thread; must not block.
     */
    default void whenSettleable(M message, Runnable settle) {
        settle.run();
    }
}
