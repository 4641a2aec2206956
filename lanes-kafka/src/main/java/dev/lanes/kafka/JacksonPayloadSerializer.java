package dev.lanes.kafka;

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
 * The default {@link PayloadSerializer}: Jackson data binding, the payload's class name as its type name, resolved on
 * the class loader given at construction (only classes on the application's class path; no polymorphic typing).
 * Records, beans, {@code java.time} values and {@code Optional} work with {@link #defaultObjectMapper()}.
 */
public final class JacksonPayloadSerializer implements PayloadSerializer {
    private final ObjectMapper mapper;
    private final ClassLoader classLoader;
    private final ConcurrentHashMap<String, Class<?>> types = new ConcurrentHashMap<>();

    /** With {@link #defaultObjectMapper()} and the thread's context class loader. */
    public JacksonPayloadSerializer() {
        this(defaultObjectMapper());
    }

    public JacksonPayloadSerializer(ObjectMapper mapper) {
        this(mapper, defaultClassLoader());
    }

    public JacksonPayloadSerializer(ObjectMapper mapper, ClassLoader classLoader) {
        this.mapper = Objects.requireNonNull(mapper, "mapper");
        this.classLoader = Objects.requireNonNull(classLoader, "classLoader");
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
        return "JacksonPayloadSerializer";
    }
}
