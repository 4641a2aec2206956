package dev.lanes.postgres;

/**
 * Turns event payloads and snapshot states into JSON text and back. The stores keep the {@link #typeName(Object)}
 * next to the JSON and give it back to {@link #deserialize(String, String)}.
 *
 * <p>The JSON is stored in a {@code jsonb} column, so it must be one valid JSON value that PostgreSQL accepts (no
 * {@code \u0000} inside strings, no {@code NaN}). Implementations must be thread-safe. Failures are reported as {@link
 * EventSerializationException}.
 */
public interface EventSerializer {

    /** The name stored with the payload; the payload's class name unless overridden (e.g. for aliases). */
    default String typeName(Object payload) {
        return payload.getClass().getName();
    }

    /**
     * The payload as one JSON value.
     *
     * @throws EventSerializationException if it cannot be written
     */
    String serialize(Object payload);

    /**
     * The payload written as {@code json} under {@code typeName}.
     *
     * @throws EventSerializationException if the type is unknown or the JSON does not fit it
     */
    Object deserialize(String typeName, String json);
}
