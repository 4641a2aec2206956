package dev.lanes.opentelemetry;

import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Objects;

/**
 * OpenTelemetry tracing for a Lanes instance, in one line: {@code Lanes.builder().tracing(LanesTracing.of(otel))}.
 *
 * <p><b>Spans</b> (names and attributes after OpenTelemetry's messaging semantic conventions, {@code messaging.system}
 * {@code lanes}):
 *
 * <ul>
 *   <li>{@code send <aggregate type>} (PRODUCER): a send through the gateway, from its subscription to its outcome; a
 *       saga's commands included. Its parent is the trace context in the command's {@code traceparent} header when it
 *       has one (a saga's command, a caller that set it), else the current context of the subscribing thread.
 *   <li>{@code process <aggregate type>} (CONSUMER): one attempt of the command in its aggregate's lane, child of the
 *       send; its events {@code load}, {@code decide}, {@code append} and {@code publish} mark the end of each step
 *       (each step starts where the one before ended, the first at the span's start): events, not spans, so that a
 *       command costs two spans.
 *       Its context is stored and published with the command's events.
 *   <li>{@code publish <aggregate type>} (PRODUCER, {@code messaging.system} {@code kafka}): on a bus outside the
 *       process, the lane's publication of the events until the bus acknowledged it, child of the lane; the
 *       processors that take the events from the bus are its children.
 *   <li>{@code process <processor>} (CONSUMER): one attempt of a processor (handler, projection, saga) on one event
 *       stream, child of the lane that appended it, whether the stream came over the bus, Kafka or the store; a saga's
 *       commands are sent as its children.
 * </ul>
 *
 * <p>Every span has {@code messaging.operation.type}, {@code messaging.destination.name} (the aggregate type),
 * {@code messaging.message.id}, {@code messaging.message.conversation_id} (the correlation id) and the span-only
 * attributes {@code lanes.aggregate.type} and {@code lanes.aggregate.id}: ids are never metric labels. A sampler, and
 * a span processor's {@code onStart}, see the attributes given at the span's start ({@code messaging.system},
 * {@code messaging.operation.type} and {@code .name}, {@code messaging.destination.name}, and a command's
 * {@code lanes.command.type}); the others, and a lane's step events, are set only on a span that records (one the
 * sampler kept), so an unsampled message pays for none of them. The context
 * travels in the W3C {@code traceparent} and {@code tracestate} headers ({@code W3CTraceContextPropagator}), whatever
 * propagators {@code openTelemetry} has: they are the headers every saga carries on.
 *
 * <p>Thread-safe; the spans are ended on the threads the work ends on.
 */
public final class LanesTracing {
    /** The instrumentation scope of the spans. */
    public static final String INSTRUMENTATION_NAME = "dev.lanes";

    private LanesTracing() {}

    /** The tracing to give {@code Lanes.Builder#tracing}: spans from {@code openTelemetry}'s tracer provider. */
    public static MessageTracing of(OpenTelemetry openTelemetry) {
        Objects.requireNonNull(openTelemetry, "openTelemetry");
        return new OpenTelemetryTracing(openTelemetry.getTracer(INSTRUMENTATION_NAME));
    }
}
