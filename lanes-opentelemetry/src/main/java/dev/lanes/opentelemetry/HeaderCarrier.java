package dev.lanes.opentelemetry;

import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Reads and writes trace context in a message's header map. */
enum HeaderCarrier implements TextMapGetter<Map<String, String>>, TextMapSetter<Map<String, String>> {
    INSTANCE;

    @Override
    public Iterable<String> keys(Map<String, String> headers) {
        return headers.keySet();
    }

    @Override
    public @Nullable String get(@Nullable Map<String, String> headers, String key) {
        return headers == null ? null : headers.get(key);
    }

    @Override
    public void set(@Nullable Map<String, String> headers, String key, String value) {
        if (headers != null) {
            headers.put(key, value);
        }
    }
}
