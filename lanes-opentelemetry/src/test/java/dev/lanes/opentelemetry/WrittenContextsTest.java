package dev.lanes.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * A {@code traceparent} this process wrote is found again by the string itself and gives the remote parent the header
 * names; an equal string from elsewhere, and a context with a trace state, are left to the parser.
 */
class WrittenContextsTest {
    private static final SpanContext SPAN = SpanContext.create(
            "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", TraceFlags.getSampled(), TraceState.getDefault());

    private final WrittenContexts written = new WrittenContexts();

    @Test
    void theWrittenHeaderGivesItsSpanAsARemoteParent() {
        TraceHeaders headers = TraceHeaders.of(SPAN);
        written.written(headers);
        String traceparent = Objects.requireNonNull(headers.into(Map.of()).get(MessageTracing.TRACEPARENT));

        SpanContext parent = written.parentOf(traceparent);

        assertThat(parent)
                .as("what the W3C propagator extracts from the header")
                .isEqualTo(SpanContext.createFromRemoteParent(
                        SPAN.getTraceId(), SPAN.getSpanId(), SPAN.getTraceFlags(), SPAN.getTraceState()));
        assertThat(Objects.requireNonNull(parent).isRemote()).isTrue();
    }

    @Test
    void anEqualHeaderFromElsewhereIsLeftToTheParser() {
        TraceHeaders headers = TraceHeaders.of(SPAN);
        written.written(headers);
        String copy = new String(Objects.requireNonNull(headers.traceparent()).toCharArray());

        assertThat(written.parentOf(copy)).isNull();
    }

    @Test
    void aContextWithATraceStateIsNotKept() {
        TraceHeaders headers = TraceHeaders.of(SpanContext.create(
                SPAN.getTraceId(),
                SPAN.getSpanId(),
                SPAN.getTraceFlags(),
                TraceState.builder().put("vendor", "a1").build()));
        written.written(headers);

        assertThat(written.parentOf(Objects.requireNonNull(headers.traceparent())))
                .isNull();
    }

    @Test
    void headersOfOtherSpansInTheSameSlotAreNotTakenForIt() {
        SpanContext sameSlot = SpanContext.create(
                SPAN.getTraceId(), "11f067aa0ba902b7", TraceFlags.getSampled(), TraceState.getDefault());
        TraceHeaders first = TraceHeaders.of(SPAN);
        TraceHeaders second = TraceHeaders.of(sameSlot);
        written.written(first);
        written.written(second); // overwrites the first: their span ids end alike

        assertThat(written.parentOf(Objects.requireNonNull(first.traceparent())))
                .as("overwritten: left to the parser")
                .isNull();
        assertThat(Objects.requireNonNull(written.parentOf(Objects.requireNonNull(second.traceparent())))
                        .getSpanId())
                .isEqualTo("11f067aa0ba902b7");
    }

    @Test
    void aMalformedHeaderIsLeftToTheParser() {
        written.written(TraceHeaders.of(SPAN));

        assertThat(written.parentOf("00-short")).isNull();
        assertThat(written.parentOf("")).isNull();
    }
}
