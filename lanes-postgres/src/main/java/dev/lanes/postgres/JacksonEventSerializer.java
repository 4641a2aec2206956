package dev.lanes.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The default {@link EventSerializer}: Jackson data binding, the payload's class name as its type. Records, plain
 * beans, {@code java.time} values and {@code Optional} work with {@link #defaultObjectMapper()}.
 *
 * <p>The type name read from the database is resolved with {@link Class#forName(String, boolean, ClassLoader)} on the
 * class loader given at construction (the thread's context class loader by default), so only classes on the
 * application's class path can be named; there is no polymorphic default typing.
 */
public final class JacksonEventSerializer implements EventSerializer {
    private final ObjectMapper mapper;
    private final ClassLoader classLoader;
    private final ConcurrentHashMap<String, Class<?>> types = new ConcurrentHashMap<>();

    /** With {@link #defaultObjectMapper()}. */
    public JacksonEventSerializer() {
        this(defaultObjectMapper());
    }

    public JacksonEventSerializer(ObjectMapper mapper) {
        this(mapper, defaultClassLoader());
    }

    public JacksonEventSerializer(ObjectMapper mapper, ClassLoader classLoader) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
        this.classLoader = Objects.requireNonNull(classLoader, "classLoader");
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

    /** Reads straight from an already parsed tree (the stores parse a stream's event array once). */
    Object fromTree(String typeName, JsonNode json) {
        Class<?> type = resolve(typeName);
        try {
            return mapper.treeToValue(json, type);
        } catch (JsonProcessingException | RuntimeException e) {
            throw new EventSerializationException("Cannot read " + typeName + " from JSON: " + e.getMessage(), e);
        }
    }

    private Class<?> resolve(String typeName) {
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
