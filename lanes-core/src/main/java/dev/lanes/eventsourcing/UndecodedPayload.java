package dev.lanes.eventsourcing;

import dev.lanes.messaging.DomainEventStream;
import java.util.Objects;

/**
 * An event payload received or read back that its codec could not decode (an unknown type, a revision without an
 * upcaster, data that does not fit its class), kept as it was encoded so that nothing of it is lost. It stands in for
 * the payload in a {@link dev.lanes.messaging.DomainEvent}: a bus hands its consumers such a stream rather than skip
 * it, so that the stream takes its place in its aggregate's order.
 *
 * <p>An event processor never runs a handler for a stream that holds one: delivering it fails with {@link
 * #failure(DomainEventStream, int)} (not retried: the same codec cannot read it again), so the processor's sequenced
 * dead-letter queue parks the stream and holds the aggregate's later streams behind it. A durable queue stores the
 * encoded payload unchanged and decodes it again when the letters are read back; a retry after a codec that reads it
 * was deployed (a registration, an upcaster) delivers the stream.
 *
 * @param encoded the payload as it was encoded: type name, revision, data
 * @param reason why it could not be decoded (the codec's error), for the dead letter's reason and logs
 */
public record UndecodedPayload(EncodedPayload encoded, String reason) {

    public UndecodedPayload {
        Objects.requireNonNull(encoded, "encoded");
        Objects.requireNonNull(reason, "reason");
    }

    /** The payload {@code encoded} could not be decoded because of {@code error}. */
    public static UndecodedPayload of(EncodedPayload encoded, Throwable error) {
        return new UndecodedPayload(encoded, String.valueOf(error));
    }

    /**
     * The failure of delivering {@code stream}, whose event {@code sequence} is this payload: a {@link
     * PayloadCodecException} naming the aggregate, version, request, the encoded type and revision, and the reason.
     */
    public PayloadCodecException failure(DomainEventStream stream, int sequence) {
        return PayloadCodecException.undecoded(stream, sequence, this);
    }

    /** {@code Undecoded[type@revision: reason]}; the data is left out. */
    @Override
    public String toString() {
        return "Undecoded[" + encoded + ": " + reason + "]";
    }
}
