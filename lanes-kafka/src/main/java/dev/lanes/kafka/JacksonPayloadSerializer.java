package dev.lanes.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.lanes.eventsourcing.EncodedPayload;
import dev.lanes.eventsourcing.PayloadCodec;
import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.eventsourcing.types.SerializedEvent;
import dev.lanes.eventsourcing.types.UpcastingException;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default {@link PayloadSerializer} and event {@link PayloadCodec} of the Kafka buses: Jackson data binding; a
 * payload's type is its name in the {@link EventTypes} given at construction (with its revision), else its class name
 * (revision {@link EventTypes#UNREVISED}), resolved on the class loader given at construction (only classes on the
 * application's class path; no polymorphic typing). Records, beans, {@code java.time} values and {@code Optional} work
 * with {@link #defaultObjectMapper()}.
 *
 * <p>An event read from a record is first brought to the current revision of its type by the upcasters of the {@link
 * EventTypes} (on its JSON tree), then read into its class: the same names, JSON and upcasting as the PostgreSQL
 * store's {@code JacksonEventSerializer} with the same {@code EventTypes}, so either can be the bus's codec.
 */
public final class JacksonPayloadSerializer implements PayloadSerializer, PayloadCodec {
    private final ObjectMapper mapper;
    private final EventTypes eventTypes;
    private final ClassLoader classLoader;
    private final ConcurrentHashMap<String, Class<?>> types = new ConcurrentHashMap<>();

    /** With {@link #defaultObjectMapper()}, no registered type names, and the thread's context class loader. */
    public JacksonPayloadSerializer() {
        this(defaultObjectMapper());
    }

    public JacksonPayloadSerializer(ObjectMapper mapper) {
        this(mapper, EventTypes.NONE);
    }

    /** With stable type names and upcasters. */
    public JacksonPayloadSerializer(ObjectMapper mapper, EventTypes types) {
        this(mapper, types, defaultClassLoader());
    }

    public JacksonPayloadSerializer(ObjectMapper mapper, ClassLoader classLoader) {
        this(mapper, EventTypes.NONE, classLoader);
    }

    public JacksonPayloadSerializer(ObjectMapper mapper, EventTypes types, ClassLoader classLoader) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
        this.eventTypes = Objects.requireNonNull(types, "types");
        this.classLoader = Objects.requireNonNull(classLoader, "classLoader");
    }

    /** The registered name of the payload's class, else its class name. */
    @Override
    public String typeName(Object payload) {
        EventTypes.Registration registration = eventTypes.registration(payload.getClass());
        return registration == null ? payload.getClass().getName() : registration.name();
    }

    /**
     * The payload's {@link #typeName}, the current revision of its registered type (else {@link
     * EventTypes#UNREVISED}) and its JSON.
     *
     * @throws IllegalArgumentException if it cannot be written
     */
    @Override
    public EncodedPayload encode(Object payload) {
        EventTypes.Registration registration = eventTypes.registration(payload.getClass());
        int revision = registration == null ? EventTypes.UNREVISED : registration.revision();
        return new EncodedPayload(typeName(payload), revision, serialize(payload));
    }

    /**
     * The payload at the current revision of its type, through the upcasters of the {@link EventTypes}.
     *
     * @throws IllegalArgumentException if the JSON does not parse, the type is unknown, or it does not fit the type
     * @throws UpcastingException if an upcaster fails or is missing
     */
    @Override
    public Object decode(EncodedPayload stored) {
        JsonNode json;
        try {
            json = mapper.readTree(stored.data());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("Cannot read " + stored + " from JSON: " + e.getOriginalMessage(), e);
        }
        return fromTree(stored.type(), stored.revision(), json);
    }

    /** Upcasts, then reads straight from a parsed tree: the codec parses a record's value once. */
    Object fromTree(String typeName, int revision, JsonNode json) {
        SerializedEvent<JsonNode> current = eventTypes.upcast(new SerializedEvent<>(typeName, revision, json));
        return fromTree(current.type(), current.payload());
    }

    /** Java time and {@code Optional} modules, ISO-8601 dates, unknown properties ignored (a removed field reads). */
    public static ObjectMapper defaultObjectMapper() {
        return JsonMapper.builder()
                .addModule(new JavaTimeModule())
                .addModule(new Jdk8Module())
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .build();
    }

    private static ClassLoader defaultClassLoader() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        return context != null ? context : JacksonPayloadSerializer.class.getClassLoader();
    }

    @Override
    public String serialize(Object payload) {
        try {
            return mapper.writeValueAsString(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "Cannot write " + payload.getClass().getName() + " as JSON: " + e.getOriginalMessage(), e);
        }
    }

    @Override
    public Object deserialize(String typeName, String json) {
        try {
            return mapper.readValue(json, resolve(typeName));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("Cannot read " + typeName + " from JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** Reads straight from a parsed tree: the codec parses a record's value once. */
    Object fromTree(String typeName, JsonNode json) {
        try {
            return mapper.treeToValue(json, resolve(typeName));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("Cannot read " + typeName + " from JSON: " + e.getOriginalMessage(), e);
        }
    }

    private Class<?> resolve(String typeName) {
        EventTypes.Registration registration = eventTypes.registration(typeName);
        if (registration != null) {
            return registration.type();
        }
        Class<?> known = types.get(typeName);
        if (known != null) {
            return known;
        }
        try {
            Class<?> loaded = Class.forName(typeName, false, classLoader);
            types.putIfAbsent(typeName, loaded);
            return loaded;
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException("Unknown payload type " + typeName + ": no such class", e);
        }
    }

    @Override
    public String toString() {
        return "JacksonPayloadSerializer[" + eventTypes + "]";
    }
}
