package dev.lanes.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import java.util.Objects;

/** The spans of one trace, looked up by parent and name; each lookup asserts that exactly one span fits. */
record TraceTree(List<SpanData> spans) {
    static final AttributeKey<String> COMMAND_TYPE = AttributeKey.stringKey("lanes.command.type");

    /** The trace whose root is the send of a {@code commandType}; its spans among {@code all}. */
    static TraceTree ofSend(List<SpanData> all, String commandType) {
        List<SpanData> roots = all.stream()
                .filter(span -> !span.getParentSpanContext().isValid())
                .filter(span -> commandType.equals(span.getAttributes().get(COMMAND_TYPE)))
                .toList();
        assertThat(roots).as("root sends of %s", commandType).hasSize(1);
        String traceId = roots.get(0).getTraceId();
        return new TraceTree(
                all.stream().filter(span -> span.getTraceId().equals(traceId)).toList());
    }

    SpanData root() {
        List<SpanData> roots = spans.stream()
                .filter(span -> !span.getParentSpanContext().isValid())
                .toList();
        assertThat(roots).as("roots of %s", names()).hasSize(1);
        return roots.get(0);
    }

    /** The one child of {@code parent} named {@code name} (of command type {@code commandType} if not null). */
    SpanData child(SpanData parent, String name, SpanKind kind) {
        List<SpanData> children = children(parent).stream()
                .filter(span -> span.getName().equals(name))
                .toList();
        assertThat(children)
                .as("children named '%s' of %s in %s", name, parent.getName(), names())
                .hasSize(1);
        assertThat(children.get(0).getKind()).as(name).isEqualTo(kind);
        return children.get(0);
    }

    List<SpanData> children(SpanData parent) {
        return spans.stream()
                .filter(span -> span.getParentSpanId().equals(parent.getSpanId()))
                .toList();
    }

    static String attribute(SpanData span, String key) {
        return Objects.requireNonNull(
                span.getAttributes().get(AttributeKey.stringKey(key)), () -> key + " on " + span.getName());
    }

    List<String> names() {
        return spans.stream()
                .map(span -> span.getName() + "(" + span.getSpanId() + "<-" + span.getParentSpanId() + ")")
                .toList();
    }
}
