package dev.lanes.eventsourcing;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NonRecoverableException;
import dev.lanes.messaging.DomainEventStream;

/**
 * A {@link PayloadCodec} could not encode an event for an append, or decode a stored one on a read (the codec's
 * failure is the cause), or a stream holds an {@link UndecodedPayload} that a processor cannot handle. Retrying the same append or read cannot help: the codec (a missing registration or upcaster)
 * or the payload must change.
 */
public final class PayloadCodecException extends NonRecoverableException {
    private static final long serialVersionUID = 1L;

    private PayloadCodecException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Event {@code sequence} of {@code stream} could not be encoded: the append stored nothing. */
    static PayloadCodecException encoding(DomainEventStream stream, int sequence, Object payload, Throwable cause) {
        return new PayloadCodecException(
                "Cannot encode event " + sequence + " (" + payload.getClass().getName() + ") of " + stream.aggregateId()
                        + " v" + stream.version() + " (request " + stream.requestId() + "): " + cause.getMessage()
                        + "; nothing of the stream was stored",
                cause);
    }

    /** Event {@code sequence} of {@code stream} was received or read back undecoded: no handler can run for it. */
    static PayloadCodecException undecoded(DomainEventStream stream, int sequence, UndecodedPayload payload) {
        return new PayloadCodecException(
                "Cannot decode event " + sequence + " of " + stream.aggregateId() + " v" + stream.version()
                        + " (request " + stream.requestId() + "), encoded as " + payload.encoded() + ": "
                        + payload.reason() + "; no handler ran for the stream, which waits for a codec that reads it",
                new IllegalStateException(payload.reason()));
    }

    /** Event {@code sequence} of the stored stream {@code aggregateId} v{@code version} could not be decoded. */
    static PayloadCodecException decoding(
            AggregateId aggregateId, int version, int sequence, EncodedPayload stored, Throwable cause) {
        return new PayloadCodecException(
                "Cannot decode event " + sequence + " of " + aggregateId + " v" + version + ", stored as " + stored
                        + ": " + cause.getMessage(),
                cause);
    }
}
