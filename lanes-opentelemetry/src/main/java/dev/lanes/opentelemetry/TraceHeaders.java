package dev.lanes.opentelemetry;

import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The W3C trace-context headers of one span, written into a message's headers in one immutable map: no intermediate
 * copy (the messages keep an immutable map as it is). The {@code traceparent} is formatted here; a non-empty trace state
 * goes through {@link W3CTraceContextPropagator}, so both headers are what the propagator would write.
 */
final class TraceHeaders {
    private final SpanContext span;
    private final @Nullable String traceparent;
    private final @Nullable String tracestate;

    private TraceHeaders(SpanContext span, @Nullable String traceparent, @Nullable String tracestate) {
        this.span = span;
        this.traceparent = traceparent;
        this.tracestate = tracestate;
    }

    /** The span whose context these headers carry. */
    SpanContext span() {
        return span;
    }

    /** The {@code traceparent} header, or null for a span context that is not valid. */
    @Nullable
    String traceparent() {
        return traceparent;
    }

    /** The {@code tracestate} header, or null when the span has no trace state. */
    @Nullable
    String tracestate() {
        return tracestate;
    }

    /** Whether {@code traceparent} is the very header string these headers wrote (not an equal copy). */
    @SuppressWarnings("ReferenceEquality") // identity is the point: the string this process formatted
    boolean wrote(String traceparent) {
        return this.traceparent == traceparent;
    }

    /** The headers that carry {@code span}'s context; none if its context is not valid (a no-op tracer's span). */
    static TraceHeaders of(SpanContext span) {
        if (!span.isValid()) {
            return new TraceHeaders(span, null, null);
        }
        if (span.getTraceState().isEmpty()) {
            return new TraceHeaders(
                    span,
                    "00-" + span.getTraceId() + "-" + span.getSpanId() + "-"
                            + span.getTraceFlags().asHex(),
                    null);
        }
        Map<String, String> written = new HashMap<>(4);
        W3CTraceContextPropagator.getInstance()
                .inject(Context.root().with(Span.wrap(span)), written, HeaderCarrier.INSTANCE);
        return new TraceHeaders(span, written.get(MessageTracing.TRACEPARENT), written.get(MessageTracing.TRACESTATE));
    }

    /**
     * {@code headers} with these trace-context headers in place of the ones they held (none held is the usual case),
     * every other header as it was; immutable.
     */
    Map<String, String> into(Map<String, String> headers) {
        int others = headers.size();
        for (String key : MessageTracing.TRACE_CONTEXT_HEADERS) {
            if (headers.containsKey(key)) {
                others--;
            }
        }
        String[] pairs = new String[2 * (others + 2)];
        int at = 0;
        if (others > 0) {
            for (String key : headers.keySet()) { // an immutable map's entries would be made one by one
                if (!MessageTracing.TRACE_CONTEXT_HEADERS.contains(key)) {
                    pairs[at++] = key;
                    pairs[at++] = headers.get(key);
                }
            }
        }
        if (traceparent != null) {
            pairs[at++] = MessageTracing.TRACEPARENT;
            pairs[at++] = traceparent;
        }
        if (tracestate != null) {
            pairs[at++] = MessageTracing.TRACESTATE;
            pairs[at++] = tracestate;
        }
        return immutable(pairs, at / 2);
    }

    private static Map<String, String> immutable(String[] p, int size) {
        switch (size) {
            case 0:
                return Map.of();
            case 1:
                return Map.of(p[0], p[1]);
            case 2:
                return Map.of(p[0], p[1], p[2], p[3]);
            case 3:
                return Map.of(p[0], p[1], p[2], p[3], p[4], p[5]);
            case 4:
                return Map.of(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
            default:
                @SuppressWarnings("unchecked")
                Map.Entry<String, String>[] entries = new Map.Entry[size];
                for (int i = 0; i < size; i++) {
                    entries[i] = Map.entry(p[2 * i], p[2 * i + 1]);
                }
                return Map.ofEntries(entries);
        }
    }
}
