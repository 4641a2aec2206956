package dev.lanes.kafka;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default {@link RecordParkingLot}: a record no lane can take is written, unchanged (key, value and headers), to the
 * instance's parked-records topic ({@link TopicNaming#parkedRecords()}) with headers saying where it came from and why
 * ({@link #ORIGIN_HEADER_PREFIX}{@code topic|partition|offset|group|error|parked-at}), and the consumer moves on only
 * once Kafka acknowledged it: it outlives the process, and every instance's parked records are in one topic, keyed as
 * they were (one key's records stay in their order). A write that fails (or is not acknowledged within the wait)
 * throws: the consumer then reports a fatal fault and does not commit past the record, so nothing is lost.
 *
 * <p>Called on a consumer thread, which waits for the acknowledgement: parked records are rare.
 */
final class ParkingTopic implements RecordParkingLot {
    /** The prefix of the headers that say where a parked record came from and why. */
    static final String ORIGIN_HEADER_PREFIX = "lanes.parked.";

    private static final Logger log = LoggerFactory.getLogger(RecordParkingLot.class);
    private static final long WAIT_SECONDS = 30;

    private final KafkaBuses kafka;
    private final AtomicLong parked = new AtomicLong();

    ParkingTopic(KafkaBuses kafka) {
        this.kafka = kafka;
    }

    /** Where the records are written. */
    String topic() {
        return kafka.options().topics().parkedRecords();
    }

    /** How many records this instance parked since it started. */
    long parked() {
        return parked.get();
    }

    @Override
    public void park(ParkedRecord record) {
        RecordHeaders headers = new RecordHeaders();
        for (Map.Entry<String, String> header : record.headers().entrySet()) {
            headers.add(header.getKey(), bytes(header.getValue()));
        }
        headers.add(ORIGIN_HEADER_PREFIX + "topic", bytes(record.topic()));
        headers.add(ORIGIN_HEADER_PREFIX + "partition", bytes(Integer.toString(record.partition())));
        headers.add(ORIGIN_HEADER_PREFIX + "offset", bytes(Long.toString(record.offset())));
        headers.add(ORIGIN_HEADER_PREFIX + "group", bytes(record.group()));
        headers.add(ORIGIN_HEADER_PREFIX + "error", bytes(String.valueOf(record.error())));
        headers.add(ORIGIN_HEADER_PREFIX + "parked-at", bytes(record.parkedAt().toString()));
        String topic = topic();
        try {
            kafka.producer()
                    .send(new ProducerRecord<>(topic, null, record.key(), record.value(), headers))
                    .get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw notParked(record, topic, interrupted);
        } catch (ExecutionException failed) {
            Throwable cause = failed.getCause();
            throw notParked(record, topic, cause == null ? failed : cause);
        } catch (TimeoutException | RuntimeException failed) {
            throw notParked(record, topic, failed);
        }
        parked.incrementAndGet();
        log.warn("Parked on topic {}: {}", topic, record); // the error is in the record and its toString
    }

    private KafkaSendException notParked(ParkedRecord record, String topic, Throwable cause) {
        return new KafkaSendException(
                kafka.name() + " could not park " + record + " on topic " + topic + " (not committed past it): "
                        + cause,
                cause);
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "ParkingTopic[" + topic() + "]";
    }
}
