package dev.lanes.kafka;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

/**
 * A fetched record, decoded once: its message, or why it could not be decoded.
 *
 * @param <M> the message type
 */
record Fetched<M>(
        ConsumerRecord<String, byte[]> record,
        @Nullable M message,
        @Nullable RuntimeException error) {}
