package dev.lanes.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.lanes.eventsourcing.EncodedPayload;
import dev.lanes.eventsourcing.EventStores;
import dev.lanes.eventsourcing.PayloadCodec;
import dev.lanes.eventsourcing.types.EventTypes;
import dev.lanes.eventsourcing.types.SerializedEvent;
import dev.lanes.eventsourcing.types.UpcastingException;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default {@link EventSerializer}: Jackson data binding; a payload's type is its name in the {@link EventTypes}
 * given at construction (with its revision), else its class name. Records, plain beans, {@code java.time} values and
 * {@code Optional} work with {@link #defaultObjectMapper()}.
 *
 * <p>A stored event is first brought to the current revision of its type by the upcasters of the {@link EventTypes}
 * (on its JSON tree), then read into the registered class. A name that is not registered is resolved with {@link
 * Class#forName(String, boolean, ClassLoader)} on the class loader given at construction (the thread's context class
 * loader by default), so only classes on the application's class path can be named; there is no polymorphic default
 * typing. Snapshot states are read by name without upcasting (a snapshot that no longer reads can be deleted: it is
 * rebuilt from the events).
 *
 * <p>It is also a {@link PayloadCodec}, the core's view of the same encoding ({@link #encode(Object)}: stored type
 * name, revision and JSON; {@link #decode(EncodedPayload)}: upcast, then read), so {@link
 * EventStores#inMemory(PayloadCodec)} given the serializer of a PostgreSQL store keeps and reads events exactly as that
 * store does: tests in memory run the production names and upcasters.
 */
public final class JacksonEventSerializer implements EventSerializer, PayloadCodec {
    private final ObjectMapper mapper;
    private final EventTypes eventTypes;
    private final ClassLoader classLoader;
    private final ConcurrentHashMap<String, Class<?>> types = new ConcurrentHashMap<>();

    /** With {@link #defaultObjectMapper()}. */
    public JacksonEventSerializer() {
        this(defaultObjectMapper());
    }

    public JacksonEventSerializer(ObjectMapper mapper) {
        this(mapper, EventTypes.NONE);
    }

    /** With stable type names and upcasters. */
    public JacksonEventSerializer(ObjectMapper mapper, EventTypes types) {
        this(mapper, types, defaultClassLoader());
    }

    public JacksonEventSerializer(ObjectMapper mapper, ClassLoader classLoader) {
        this(mapper, EventTypes.NONE, classLoader);
    }

    public JacksonEventSerializer(ObjectMapper mapper, EventTypes types, ClassLoader classLoader) {
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

    /** The current revision of the payload's registered type, else {@link EventTypes#UNREVISED}. */
    int revision(Object payload) {
        EventTypes.Registration registration = eventTypes.registration(payload.getClass());
        return registration == null ? EventTypes.UNREVISED : registration.revision();
    }

    /**
     * Java time and {@code Optional} modules, ISO-8601 dates (not numbers), unknown properties ignored so that a field
     * removed from an event type does not make its old events unreadable.
     */
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
        return context != null ? context : JacksonEventSerializer.class.getClassLoader();
    }

    @Override
    public String serialize(Object payload) {
        try {
            return mapper.writeValueAsString(payload);
        } catch (JsonProcessingException | RuntimeException e) {
            throw new EventSerializationException(
                    "Cannot write " + payload.getClass().getName() + " as JSON: " + e.getMessage(), e);
        }
    }

    @Override
    public Object deserialize(String typeName, String json) {
        Class<?> type = resolve(typeName);
        try {
            return mapper.readValue(json, type);
        } catch (JsonProcessingException | RuntimeException e) {
            throw new EventSerializationException("Cannot read " + typeName + " from JSON: " + e.getMessage(), e);
        }
    }

    /**
     * The payload as {@link StreamCodec} stores it: its {@link #typeName(Object)}, its {@link #revision(Object)} and
     * its {@link #serialize(Object)} JSON.
     *
     * @throws EventSerializationException if it cannot be written
     */
    @Override
    public EncodedPayload encode(Object payload) {
        return new EncodedPayload(typeName(payload), revision(payload), serialize(payload));
    }

    /**
     * The stored payload at the current revision of its type, through the upcasters of the {@link EventTypes}, as the
     * PostgreSQL store reads it.
     *
     * @throws EventSerializationException if the JSON does not parse, an upcaster fails or is missing, or the upcast
     *     JSON does not fit the type
     */
    @Override
    public Object decode(EncodedPayload stored) {
        JsonNode json;
        try {
            json = mapper.readTree(stored.data());
        } catch (JsonProcessingException | RuntimeException e) {
            throw new EventSerializationException("Cannot read " + stored + " from JSON: " + e.getMessage(), e);
        }
        return fromTree(stored.type(), stored.revision(), json);
    }

    /**
     * An event straight from an already parsed tree (the stores parse a stream's event array once), upcast first from
     * the revision it was stored at.
     */
    Object fromTree(String typeName, int revision, JsonNode json) {
        SerializedEvent<JsonNode> current;
        try {
            current = eventTypes.upcast(new SerializedEvent<>(typeName, revision, json));
        } catch (UpcastingException e) {
            throw new EventSerializationException(String.valueOf(e.getMessage()), e);
        }
        return fromTree(current.type(), current.payload());
    }

    /** A payload or state from a tree, read into the class its name resolves to; no upcasting. */
    Object fromTree(String typeName, JsonNode json) {
        Class<?> type = resolve(typeName);
        try {
            return mapper.treeToValue(json, type);
        } catch (JsonProcessingException | RuntimeException e) {
            throw new EventSerializationException("Cannot read " + typeName + " from JSON: " + e.getMessage(), e);
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
            throw new EventSerializationException(
                    "Unknown payload type " + typeName + ": no such class on the class path", e);
        }
    }
}
