package dev.lanes.kafka;

import dev.lanes.api.RecoverableException;

/**
 * Kafka did not confirm a record (the broker was unreachable, the producer's buffer stayed full): the message may or
 * may not be in the topic. Send the command again with the same request id; it is applied at most once.
 */
public final class KafkaSendException extends RecoverableException {
    private static final long serialVersionUID = 1L;

    KafkaSendException(String message, Throwable cause) {
        super(message, cause);
    }
}
