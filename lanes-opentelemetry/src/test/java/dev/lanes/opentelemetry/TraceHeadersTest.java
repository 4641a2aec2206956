package dev.lanes.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The trace-context headers written without the propagator's map copies: the same {@code traceparent} and
 * {@code tracestate} the W3C propagator writes, in place of the stale ones, every other header kept.
 */
class TraceHeadersTest {
    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String SPAN_ID = "00f067aa0ba902b7";

    @Test
    void theHeadersAreWhatTheW3cPropagatorWrites() {
        for (SpanContext span : new SpanContext[] {
            SpanContext.create(TRACE_ID, SPAN_ID, TraceFlags.getSampled(), TraceState.getDefault()),
            SpanContext.create(TRACE_ID, SPAN_ID, TraceFlags.getDefault(), TraceState.getDefault()),
            SpanContext.create(
                    TRACE_ID,
                    SPAN_ID,
                    TraceFlags.getSampled(),
                    TraceState.builder().put("vendor", "a1").put("other", "b2").build())
        }) {
            Map<String, String> expected = new HashMap<>(Map.of("custom", "kept"));
            W3CTraceContextPropagator.getInstance()
                    .inject(Context.root().with(Span.wrap(span)), expected, HeaderCarrier.INSTANCE);

            assertThat(TraceHeaders.of(span).into(Map.of("custom", "kept")))
                    .as(span.toString())
                    .isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 7})
    void theStaleContextIsReplacedAndEveryOtherHeaderKept(int others) {
        Map<String, String> headers = new HashMap<>();
        for (int i = 0; i < others; i++) {
            headers.put("header-" + i, "value-" + i);
        }
        Map<String, String> expected = new HashMap<>(headers);
        headers.put(MessageTracing.TRACEPARENT, "00-" + "1".repeat(32) + "-" + "2".repeat(16) + "-01");
        headers.put(MessageTracing.TRACESTATE, "stale=yes");
        expected.put(MessageTracing.TRACEPARENT, "00-" + TRACE_ID + "-" + SPAN_ID + "-01");

        Map<String, String> carried = TraceHeaders.of(
                        SpanContext.create(TRACE_ID, SPAN_ID, TraceFlags.getSampled(), TraceState.getDefault()))
                .into(Map.copyOf(headers));

        assertThat(carried)
                .as("the span has no trace state: the stale one goes")
                .isEqualTo(expected);
        assertThatThrownBy(() -> carried.put("late", "no"))
                .as("immutable, so the messages keep it without a copy")
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void anInvalidSpanContextCarriesNoTraceContextAndKeepsTheOtherHeaders() {
        Map<String, String> carried = TraceHeaders.of(SpanContext.getInvalid())
                .into(Map.of(
                        "custom",
                        "kept",
                        MessageTracing.TRACEPARENT,
                        "00-" + TRACE_ID + "-" + SPAN_ID + "-01",
                        MessageTracing.TRACESTATE,
                        "stale=yes"));

        assertThat(carried).isEqualTo(Map.of("custom", "kept"));
    }
}
