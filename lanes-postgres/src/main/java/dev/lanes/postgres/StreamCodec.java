package dev.lanes.postgres;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.lanes.eventsourcing.EncodedPayload;
import dev.lanes.eventsourcing.UndecodedPayload;
import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.messaging.DomainEvent;
import java.io.IOException;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code jsonb} shapes of a stream row: {@code headers} is an object of strings, {@code events} an array of
 * {@code {"sequence": n, "type": "<type name>", "revision": r, "payload": <the serializer's JSON>}}; {@code revision}
 * only for a type registered in the {@link JacksonEventSerializer}'s {@link EventTypes} (absent reads as {@link
 * EventTypes#UNREVISED}).
 *
 * <p>An {@link UndecodedPayload} (an event a bus could not decode, parked as a dead letter) is written as it was
 * encoded: its type, revision and data unchanged (the data must be JSON). The dead-letter queue reads its letters with
 * {@link #decodeLetterEvents(String)}, which keeps an event the serializer cannot decode as an {@link UndecodedPayload}
 * instead of failing the whole read, so a letter stays listable, and is decoded once a serializer that reads it runs.
 */
final class StreamCodec {
    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {};

    private final EventSerializer serializer;

    StreamCodec(EventSerializer serializer) {
        this.serializer = serializer;
    }

    EventSerializer serializer() {
        return serializer;
    }

    String encodeHeaders(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return "{}";
        }
        try {
            return JSON.writeValueAsString(headers);
        } catch (IOException e) {
            throw new EventSerializationException("Cannot write headers as JSON: " + e.getMessage(), e);
        }
    }

    Map<String, String> decodeHeaders(String json) {
        try {
            return JSON.readValue(json, HEADERS);
        } catch (IOException e) {
            throw new EventSerializationException("Cannot read headers from JSON: " + e.getMessage(), e);
        }
    }

    /**
     * The events' {@code jsonb} array. Each payload is encoded before the array's generator opens: a Jackson generator
     * opened inside another on the same thread (the serializer's, in {@code writeValueAsString}) finds the thread's
     * recycled buffers taken and allocates new ones, which was most of this method's cost in a profile.
     */
    String encodeEvents(List<DomainEvent> events) {
        List<Encoded> encoded = new ArrayList<>(events.size());
        for (DomainEvent event : events) {
            Object payload = event.payload();
            encoded.add(
                    payload instanceof UndecodedPayload undecoded
                            ? new Encoded(
                                    undecoded.encoded().type(),
                                    undecoded.encoded().revision(),
                                    undecoded.encoded().data())
                            : new Encoded(
                                    serializer.typeName(payload), revision(payload), serializer.serialize(payload)));
        }
        StringWriter out = new StringWriter(64 * events.size());
        try (JsonGenerator json = JSON.getFactory().createGenerator(out)) {
            json.writeStartArray();
            for (int i = 0; i < encoded.size(); i++) {
                json.writeStartObject();
                json.writeNumberField("sequence", events.get(i).sequence());
                writeEncoded(json, encoded.get(i));
                json.writeEndObject();
            }
            json.writeEndArray();
        } catch (IOException e) {
            throw new EventSerializationException("Cannot write events as JSON: " + e.getMessage(), e);
        }
        return out.toString();
    }

    /** A payload's stored type, revision and JSON, as {@link #encodeEvents} writes it. */
    private record Encoded(String type, int revision, String data) {}

    private static void writeEncoded(JsonGenerator json, Encoded encoded) throws IOException {
        json.writeStringField("type", encoded.type());
        if (encoded.revision() != EventTypes.UNREVISED) {
            json.writeNumberField("revision", encoded.revision());
        }
        json.writeFieldName("payload");
        json.writeRawValue(encoded.data());
    }

    /**
     * A stored stream's events; any the serializer cannot decode fails the read.
     *
     * @throws EventSerializationException if the JSON is not an array of events, or an event does not decode
     */
    List<DomainEvent> decodeEvents(String json) {
        return decodeEvents(json, false);
    }

    /**
     * A dead letter's events: one the serializer cannot decode (still unknown, or parked undecoded) is kept as an
     * {@link UndecodedPayload} with its stored type, revision and JSON.
     *
     * @throws EventSerializationException if the JSON is not an array of events
     */
    List<DomainEvent> decodeLetterEvents(String json) {
        return decodeEvents(json, true);
    }

    private List<DomainEvent> decodeEvents(String json, boolean keepUndecoded) {
        JsonNode array;
        try {
            array = JSON.readTree(json);
        } catch (IOException e) {
            throw new EventSerializationException("Cannot read events from JSON: " + e.getMessage(), e);
        }
        if (array == null || !array.isArray()) {
            throw new EventSerializationException(
                    "Stored events are not a JSON array", new IllegalStateException(json));
        }
        List<DomainEvent> events = new ArrayList<>(array.size());
        for (JsonNode element : array) {
            JsonNode sequence = element.get("sequence");
            JsonNode type = element.get("type");
            JsonNode payload = element.get("payload");
            if (sequence == null || type == null || payload == null) {
                throw new EventSerializationException(
                        "A stored event lacks sequence, type or payload",
                        new IllegalStateException(element.toString()));
            }
            JsonNode revision = element.get("revision");
            int stored = revision == null ? EventTypes.UNREVISED : revision.asInt();
            events.add(new DomainEvent(
                    sequence.asInt(),
                    keepUndecoded
                            ? decodeOrKeep(type.asText(), stored, payload)
                            : decodeEvent(type.asText(), stored, payload)));
        }
        return events;
    }

    private Object decodeOrKeep(String typeName, int revision, JsonNode payload) {
        try {
            return decodeEvent(typeName, revision, payload);
        } catch (RuntimeException e) {
            return UndecodedPayload.of(new EncodedPayload(typeName, revision, payload.toString()), e);
        }
    }

    /**
     * A single payload that is not an event (a saga command in a dead letter), in the form of {@link #encodeEvents}: a
     * one-element array.
     */
    String encodePayload(Object payload) {
        return encodeEvents(List.of(new DomainEvent(1, payload)));
    }

    /**
     * What {@link #encodePayload} wrote; one the serializer cannot decode is kept as an {@link UndecodedPayload}, as
     * by {@link #decodeLetterEvents}.
     *
     * @throws EventSerializationException if the JSON is not a one-element array of that form
     */
    Object decodeLetterPayload(String json) {
        List<DomainEvent> decoded = decodeLetterEvents(json);
        if (decoded.size() != 1) {
            throw new EventSerializationException(
                    "A stored payload is not a one-element array", new IllegalStateException(json));
        }
        return decoded.get(0).payload();
    }

    private int revision(Object payload) {
        return serializer instanceof JacksonEventSerializer jackson ? jackson.revision(payload) : EventTypes.UNREVISED;
    }

    /** An event, upcast from its stored revision by the Jackson serializer; through JSON text for any other. */
    private Object decodeEvent(String typeName, int revision, JsonNode payload) {
        return serializer instanceof JacksonEventSerializer jackson
                ? jackson.fromTree(typeName, revision, payload)
                : serializer.deserialize(typeName, payload.toString());
    }

    /** A snapshot state: straight from the tree for the Jackson serializer, through JSON text for any other. */
    Object decode(String typeName, JsonNode payload) {
        return serializer instanceof JacksonEventSerializer jackson
                ? jackson.fromTree(typeName, payload)
                : serializer.deserialize(typeName, payload.toString());
    }
}
