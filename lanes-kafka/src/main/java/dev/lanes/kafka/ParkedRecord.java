package dev.lanes.kafka;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A record a consumer could not hand to a lane (it could not be decoded, or no receiver here takes its type), with
 * where it is and why. The partition moved on past it; {@link #offset} finds it again in the topic.
 *
 * @param group the consumer group that read it
 * @param headers the record's headers, as UTF-8 text
 * @param value the record's bytes, unchanged
 */
public record ParkedRecord(
        String group,
        String topic,
        int partition,
        long offset,
        @Nullable String key,
        Map<String, String> headers,
        byte @Nullable [] value,
        Throwable error,
        Instant parkedAt) {

    public ParkedRecord {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(topic, "topic");
        headers = Map.copyOf(headers);
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(parkedAt, "parkedAt");
    }

    @Override
    public String toString() {
        return "ParkedRecord[" + topic + "-" + partition + "@" + offset + ", group " + group + ", key " + key + ": "
                + error + "]";
    }
}
