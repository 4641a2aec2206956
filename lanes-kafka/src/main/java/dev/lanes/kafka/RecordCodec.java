package dev.lanes.kafka;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.eventsourcing.EncodedPayload;
import dev.lanes.eventsourcing.PayloadCodec;
import dev.lanes.eventsourcing.UndecodedPayload;
import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEvent;
import dev.lanes.messaging.DomainEventStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;

/**
 * The record shapes: key = {@link #key(AggregateId)} (tenant, type and id, so one aggregate's messages share a
 * partition), value = one JSON object, headers {@value #SCHEMA_HEADER} (the version of the value's shape, {@value
 * #SCHEMA_VERSION}) and {@value #KIND_HEADER}. Command payloads go through the {@link PayloadSerializer} ({@code
 * "type"}, {@code "payload"}); event payloads (of streams and of replies) through the event {@link PayloadCodec}, the
 * one the event store uses: {@code {"type": <stored name>, "revision": r, "payload": <JSON>}}, {@code revision} only
 * when not {@link EventTypes#UNREVISED}, so an event of an unregistered class is written as by earlier releases (its
 * class name, no revision), and an event without a revision, as earlier releases wrote every event, reads as the
 * unregistered class-name form at revision 0. Reading goes through the codec's upcasters. The codec's data must be one
 * JSON value (it is embedded as is).
 *
 * <p>A record whose schema version, kind or JSON this codec cannot read, or whose envelope (ids, aggregate, version,
 * headers) lacks a field, fails with a {@link RecordDecodingException}: there is no aggregate to hold, and the consumer
 * parks it in its {@link RecordParkingLot} and moves on. So does a command or an answer whose payload does not decode.
 * A stream's event whose payload the codec cannot decode does not fail the record: it is read as an {@link
 * UndecodedPayload}, and the stream goes to its processors, whose dead-letter queues park it and hold its aggregate.
 */
final class RecordCodec {
    static final String SCHEMA_HEADER = "lanes.schema";
    static final String KIND_HEADER = "lanes.kind";
    static final String SCHEMA_VERSION = "1";

    enum Kind {
        COMMAND,
        EVENTS,
        REPLY
    }

    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private final PayloadSerializer serializer;
    private final PayloadCodec events;

    /** Event payloads through {@code serializer} too: as a codec if it is one, else under class names unrevised. */
    RecordCodec(PayloadSerializer serializer) {
        this(serializer, serializer instanceof PayloadCodec codec ? codec : new SerializerCodec(serializer));
    }

    RecordCodec(PayloadSerializer serializer, PayloadCodec events) {
        this.serializer = Objects.requireNonNull(serializer, "serializer");
        this.events = Objects.requireNonNull(events, "events");
    }

    PayloadCodec events() {
        return events;
    }

    /** {@code tenant/context.aggregate/id}: stable, and the same for every message of one aggregate. */
    static String key(AggregateId id) {
        return id.tenantId() + "/" + id.namedAggregate() + "/" + id.id();
    }

    static Headers headers(Kind kind) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(SCHEMA_HEADER, SCHEMA_VERSION.getBytes(StandardCharsets.UTF_8));
        headers.add(KIND_HEADER, kind.name().toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.UTF_8));
        return headers;
    }

    // ---------------------------------------------------------------- commands

    byte[] encode(CommandMessage command) {
        Object payload = command.command();
        String type = serializer.typeName(payload);
        String data = serializer.serialize(payload);
        return write(json -> {
            json.writeStringField("messageId", command.messageId());
            json.writeStringField("requestId", command.requestId());
            writeAggregate(json, command.aggregateId());
            json.writeStringField("createdAt", command.createdAt().toString());
            writeHeaders(json, command.headers());
            json.writeStringField("type", type);
            json.writeFieldName("payload");
            json.writeRawValue(data);
        });
    }

    CommandMessage decodeCommand(Headers headers, byte[] value) {
        JsonNode json = read(headers, value, Kind.COMMAND);
        return new CommandMessage(
                text(json, "messageId"),
                aggregate(json),
                text(json, "requestId"),
                payload(json),
                Instant.parse(text(json, "createdAt")),
                headerMap(json));
    }

    // ---------------------------------------------------------------- event streams

    byte[] encode(DomainEventStream stream) {
        List<EncodedPayload> encoded = new ArrayList<>(stream.events().size());
        for (DomainEvent event : stream.events()) {
            encoded.add(events.encode(event.payload()));
        }
        return write(json -> {
            json.writeStringField("id", stream.id());
            writeAggregate(json, stream.aggregateId());
            json.writeNumberField("version", stream.version());
            json.writeStringField("requestId", stream.requestId());
            json.writeStringField("commandId", stream.commandId());
            json.writeStringField("createdAt", stream.createdAt().toString());
            writeHeaders(json, stream.headers());
            json.writeArrayFieldStart("events");
            for (int i = 0; i < encoded.size(); i++) {
                json.writeStartObject();
                json.writeNumberField("sequence", stream.events().get(i).sequence());
                writeEvent(json, encoded.get(i));
                json.writeEndObject();
            }
            json.writeEndArray();
        });
    }

    DomainEventStream decodeStream(Headers headers, byte[] value) {
        JsonNode json = read(headers, value, Kind.EVENTS);
        List<DomainEvent> events = new ArrayList<>();
        for (JsonNode event : require(json, "events")) {
            events.add(new DomainEvent(require(event, "sequence").asInt(), eventOrUndecoded(event)));
        }
        return new DomainEventStream(
                text(json, "id"),
                aggregate(json),
                require(json, "version").asInt(),
                text(json, "requestId"),
                text(json, "commandId"),
                events,
                Instant.parse(text(json, "createdAt")),
                headerMap(json));
    }

    // ---------------------------------------------------------------- replies

    byte[] encode(Reply reply) {
        List<EncodedPayload> encoded = new ArrayList<>(reply.events().size());
        for (Object event : reply.events()) {
            encoded.add(events.encode(event));
        }
        return write(json -> {
            json.writeStringField("to", reply.to());
            json.writeStringField("from", reply.from());
            json.writeStringField("commandId", reply.commandId());
            json.writeStringField("requestId", reply.requestId());
            writeAggregate(json, reply.aggregateId());
            json.writeNumberField("version", reply.version());
            json.writeArrayFieldStart("events");
            for (EncodedPayload event : encoded) {
                json.writeStartObject();
                writeEvent(json, event);
                json.writeEndObject();
            }
            json.writeEndArray();
            Reply.Failure failure = reply.failure();
            if (failure != null) {
                json.writeObjectFieldStart("failure");
                json.writeStringField("type", failure.type());
                json.writeStringField("message", failure.message());
                json.writeBooleanField("recoverable", failure.recoverable());
                json.writeBooleanField("rejected", failure.rejected());
                json.writeEndObject();
            }
            String projection = reply.projection();
            if (projection != null) {
                json.writeStringField("projection", projection);
            }
            String storedBy = reply.storedBy();
            if (storedBy != null) {
                json.writeStringField("storedBy", storedBy);
            }
        });
    }

    Reply decodeReply(Headers headers, byte[] value) {
        JsonNode json = read(headers, value, Kind.REPLY);
        List<Object> events = new ArrayList<>();
        for (JsonNode event : require(json, "events")) {
            events.add(event(event));
        }
        JsonNode failure = json.get("failure");
        return new Reply(
                text(json, "to"),
                text(json, "from"),
                text(json, "commandId"),
                text(json, "requestId"),
                aggregate(json),
                require(json, "version").asInt(),
                events,
                failure == null
                        ? null
                        : new Reply.Failure(
                                text(failure, "type"),
                                text(failure, "message"),
                                require(failure, "recoverable").asBoolean(),
                                failure.path("rejected").asBoolean(false)),
                json.hasNonNull("projection") ? text(json, "projection") : null,
                json.hasNonNull("storedBy") ? text(json, "storedBy") : null);
    }

    // ---------------------------------------------------------------- parts

    /**
     * Writes the envelope; payloads are encoded before it starts (see {@link #write}), never inside it.
     */
    private interface Body {
        void write(JsonGenerator json) throws IOException;
    }

    /**
     * One JSON object around {@code body}. Payloads must be encoded before this is called, not by {@code body}: a
     * Jackson generator opened inside this one on the same thread finds the thread's recycled buffers taken and
     * allocates new ones (some 8 KB per payload, the largest part of a record's encoding cost in a profile).
     */
    private static byte[] write(Body body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = JSON.getFactory().createGenerator(out)) {
            json.writeStartObject();
            body.write(json);
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static void writeAggregate(JsonGenerator json, AggregateId id) throws IOException {
        json.writeStringField("context", id.contextName());
        json.writeStringField("aggregate", id.aggregateName());
        json.writeStringField("aggregateId", id.id());
        json.writeStringField("tenant", id.tenantId());
    }

    private static void writeHeaders(JsonGenerator json, Map<String, String> headers) throws IOException {
        json.writeObjectFieldStart("headers");
        for (Map.Entry<String, String> header : headers.entrySet()) {
            json.writeStringField(header.getKey(), header.getValue());
        }
        json.writeEndObject();
    }

    private static void writeEvent(JsonGenerator json, EncodedPayload encoded) throws IOException {
        json.writeStringField("type", encoded.type());
        if (encoded.revision() != EventTypes.UNREVISED) {
            json.writeNumberField("revision", encoded.revision());
        }
        json.writeFieldName("payload");
        json.writeRawValue(encoded.data());
    }

    private static JsonNode read(Headers headers, byte[] value, Kind expected) {
        String schema = header(headers, SCHEMA_HEADER);
        if (!SCHEMA_VERSION.equals(schema)) {
            throw new RecordDecodingException(
                    "schema version " + schema + " is not one this codec reads (it reads " + SCHEMA_VERSION + ")");
        }
        String kind = header(headers, KIND_HEADER);
        if (!expected.name().equalsIgnoreCase(kind)) {
            throw new RecordDecodingException("kind " + kind + " where " + expected + " was expected");
        }
        try {
            JsonNode json = JSON.readTree(value);
            if (json == null || !json.isObject()) {
                throw new RecordDecodingException("the value is not a JSON object");
            }
            return json;
        } catch (IOException e) {
            throw new RecordDecodingException("the value is not JSON: " + e.getMessage(), e);
        }
    }

    static @Nullable String header(Headers headers, String name) {
        Header header = headers.lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static JsonNode require(JsonNode json, String field) {
        JsonNode node = json.get(field);
        if (node == null || node.isNull()) {
            throw new RecordDecodingException("field '" + field + "' is missing");
        }
        return node;
    }

    private static String text(JsonNode json, String field) {
        return require(json, field).asText();
    }

    private static AggregateId aggregate(JsonNode json) {
        return AggregateId.of(
                NamedAggregate.of(text(json, "context"), text(json, "aggregate")),
                text(json, "aggregateId"),
                text(json, "tenant"));
    }

    private static Map<String, String> headerMap(JsonNode json) {
        Map<String, String> headers = new HashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> fields =
                        require(json, "headers").fields();
                fields.hasNext(); ) {
            Map.Entry<String, JsonNode> field = fields.next();
            headers.put(field.getKey(), field.getValue().asText());
        }
        return headers;
    }

    /** An event payload, upcast from the revision it was written at (none: an earlier release's class name, 0). */
    private Object event(JsonNode json) {
        String type = text(json, "type");
        int revision = revision(json);
        JsonNode payload = require(json, "payload");
        try {
            return decodeEvent(type, revision, payload);
        } catch (RuntimeException e) {
            throw new RecordDecodingException(
                    "event payload of type " + type + "@" + revision + ": " + e.getMessage(), e);
        }
    }

    /**
     * A stream's event payload or, when the codec cannot decode it (an unknown type, no upcaster, data that does not
     * fit), an {@link UndecodedPayload} keeping its type, revision and JSON, so that the stream is handed over and held
     * by its processors' dead-letter queues rather than skipped.
     */
    private Object eventOrUndecoded(JsonNode json) {
        String type = text(json, "type");
        int revision = revision(json);
        JsonNode payload = require(json, "payload");
        if (type.isBlank()) {
            throw new RecordDecodingException("field 'type' is blank");
        }
        try {
            return decodeEvent(type, revision, payload);
        } catch (RuntimeException e) {
            return UndecodedPayload.of(new EncodedPayload(type, revision, payload.toString()), e);
        }
    }

    private static int revision(JsonNode json) {
        JsonNode revision = json.get("revision");
        if (revision == null || revision.isNull()) {
            return EventTypes.UNREVISED;
        }
        if (!revision.canConvertToExactIntegral() || !revision.canConvertToInt() || revision.intValue() < 0) {
            throw new RecordDecodingException("field 'revision' is not a revision: " + revision);
        }
        return revision.intValue();
    }

    private Object decodeEvent(String type, int revision, JsonNode payload) {
        return events instanceof JacksonPayloadSerializer jackson
                ? jackson.fromTree(type, revision, payload)
                : events.decode(new EncodedPayload(type, revision, payload.toString()));
    }

    private Object payload(JsonNode json) {
        String type = text(json, "type");
        JsonNode payload = require(json, "payload");
        try {
            return serializer instanceof JacksonPayloadSerializer jackson
                    ? jackson.fromTree(type, payload)
                    : serializer.deserialize(type, payload.toString());
        } catch (RuntimeException e) {
            throw new RecordDecodingException("payload of type " + type + ": " + e.getMessage(), e);
        }
    }
}
