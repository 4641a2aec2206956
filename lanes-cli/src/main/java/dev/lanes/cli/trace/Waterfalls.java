package dev.lanes.cli.trace;

import dev.lanes.cli.report.Waterfall;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Lays one trace's spans out as a {@link Waterfall}: depth first from the root, children by start time; under each
 * lane its steps (from the events that mark where each ended); before each processor's handling of a stream an
 * event-bus row from the start of the lane's {@code publish} step to the handling's start (what the stream spent on
 * the bus and in the processor's queue).
 */
final class Waterfalls {
    private Waterfalls() {}

    /**
     * @throws IllegalArgumentException if {@code spans} has no root span
     */
    static Waterfall of(String title, List<SpanData> spans) {
        SpanData root = spans.stream()
                .filter(span -> !span.getParentSpanContext().isValid())
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "a waterfall needs the root span: " + spans.size() + " span(s) of trace "
                                + (spans.isEmpty() ? "?" : spans.get(0).getTraceId())));
        Map<String, List<SpanData>> children = new HashMap<>();
        for (SpanData span : spans) {
            if (span != root) {
                children.computeIfAbsent(span.getParentSpanId(), parent -> new ArrayList<>())
                        .add(span);
            }
        }
        children.values().forEach(list -> list.sort(Comparator.comparingLong(SpanData::getStartEpochNanos)));
        List<Waterfall.Row> rows = new ArrayList<>();
        add(root, null, 0, root.getStartEpochNanos(), children, rows);
        return new Waterfall(title, root.getTraceId(), rows);
    }

    private static void add(
            SpanData span,
            @Nullable SpanData parent,
            int depth,
            long origin,
            Map<String, List<SpanData>> children,
            List<Waterfall.Row> rows) {
        Waterfall.Kind kind = kind(span);
        if (kind == Waterfall.Kind.HANDLING && parent != null) {
            // from the publication's start: the publish step starts where the append step ended; over Kafka, the
            // publication is a span of its own
            Long published = parent.getKind() == SpanKind.PRODUCER
                    ? Long.valueOf(parent.getStartEpochNanos())
                    : parent.getEvents().stream()
                            .filter(step -> step.getName().equals("append"))
                            .map(EventData::getEpochNanos)
                            .findFirst()
                            .orElse(null);
            if (published != null && published <= span.getStartEpochNanos()) {
                rows.add(new Waterfall.Row(
                        "event bus to " + span.getAttributes().get(TransferRecorder.CONSUMER_GROUP),
                        Waterfall.Kind.BUS,
                        depth,
                        Math.max(0, published - origin),
                        span.getStartEpochNanos() - published));
            }
        }
        rows.add(new Waterfall.Row(
                kind == Waterfall.Kind.STEP ? span.getName() : TransferRecorder.describe(span),
                kind,
                depth,
                Math.max(0, span.getStartEpochNanos() - origin),
                Math.max(0, span.getEndEpochNanos() - span.getStartEpochNanos())));
        if (kind == Waterfall.Kind.LANE) { // its steps: events that mark where each ended
            long stepStart = span.getStartEpochNanos();
            for (EventData step : span.getEvents()) {
                rows.add(new Waterfall.Row(
                        step.getName(),
                        Waterfall.Kind.STEP,
                        depth + 1,
                        Math.max(0, stepStart - origin),
                        Math.max(0, step.getEpochNanos() - stepStart)));
                stepStart = step.getEpochNanos();
            }
        }
        for (SpanData child : children.getOrDefault(span.getSpanId(), List.of())) {
            add(child, span, depth + 1, origin, children, rows);
        }
    }

    private static Waterfall.Kind kind(SpanData span) {
        if (span.getKind() == SpanKind.PRODUCER) {
            return Waterfall.Kind.SEND;
        }
        if (span.getKind() == SpanKind.CONSUMER) {
            return span.getAttributes().get(TransferRecorder.CONSUMER_GROUP) == null
                    ? Waterfall.Kind.LANE
                    : Waterfall.Kind.HANDLING;
        }
        return Waterfall.Kind.STEP;
    }
}
