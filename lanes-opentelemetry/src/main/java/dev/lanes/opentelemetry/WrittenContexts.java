package dev.lanes.opentelemetry;

import io.opentelemetry.api.trace.SpanContext;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The trace contexts this tracing wrote lately, found again by their {@code traceparent} header, the very string it
 * wrote: a message that stays in the process (a gateway's command reaching its lane, a lane's events reaching a
 * processor on the in-memory bus) gives back its parent without the header being parsed. A bounded table of the latest
 * writes, a slot overwritten by the next write that hashes to it; what is not found (a header from another process or
 * read back from a store, an overwritten slot, a context with a trace state) is parsed as before, to the same parent.
 *
 * <p>Thread-safe: written on the threads that send and run lanes, read on the lanes and processors.
 */
final class WrittenContexts {
    private static final int SLOTS = 1024;
    /** Where a {@code traceparent}'s span id ends: after {@code 00-}, 32 digits of trace id, {@code -}, 16 digits. */
    private static final int SPAN_ID_END = 3 + 32 + 1 + 16;

    private final AtomicReferenceArray<TraceHeaders> slots = new AtomicReferenceArray<>(SLOTS);

    /** {@code headers} were written into a message; kept when they are a {@code traceparent} alone. */
    void written(TraceHeaders headers) {
        String traceparent = headers.traceparent();
        if (traceparent != null && headers.tracestate() == null) {
            slots.lazySet(slot(traceparent), headers);
        }
    }

    /**
     * The remote parent that {@code traceparent} names, if it is the string this tracing wrote lately (not an equal
     * one: the same instance), else null. The caller checked that the message has no {@code tracestate}.
     */
    @Nullable
    SpanContext parentOf(String traceparent) {
        TraceHeaders written = slots.get(slot(traceparent));
        if (written == null || !written.wrote(traceparent)) {
            return null;
        }
        SpanContext span = written.span();
        return SpanContext.createFromRemoteParent(
                span.getTraceId(), span.getSpanId(), span.getTraceFlags(), span.getTraceState());
    }

    /**
     * The slot of a {@code traceparent}: the last three hex digits of its span id ({@code 00-<trace id>-<span id>-<flags>},
     * the span id random), read in place instead of hashing the 55 characters. A string too short for a span id, or
     * with other characters there, still gets a slot: only the identity check decides what is found.
     */
    private static int slot(String traceparent) {
        if (traceparent.length() < SPAN_ID_END) {
            return 0;
        }
        return (hex(traceparent.charAt(SPAN_ID_END - 3)) << 8
                        | hex(traceparent.charAt(SPAN_ID_END - 2)) << 4
                        | hex(traceparent.charAt(SPAN_ID_END - 1)))
                & (SLOTS - 1);
    }

    private static int hex(char digit) {
        return digit <= '9' ? digit - '0' : (digit | 0x20) - 'a' + 10;
    }
}
