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

    private static int slot(String traceparent) {
        int hash = traceparent.hashCode(); // computed once per string, then kept in it
        return (hash ^ (hash >>> 16)) & (SLOTS - 1);
    }
}
