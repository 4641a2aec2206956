package dev.lanes.opentelemetry;

import dev.lanes.api.AggregateId;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.tracing.MessageTrace;
import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

/** {@link MessageTracing} over an OpenTelemetry tracer; see {@link LanesTracing}. */
final class OpenTelemetryTracing implements MessageTracing {
    static final String SYSTEM = "lanes";
    static final AttributeKey<String> MESSAGING_SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
    static final AttributeKey<String> CONVERSATION_ID = AttributeKey.stringKey("messaging.message.conversation_id");
    static final AttributeKey<String> CONSUMER_GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
    static final AttributeKey<String> AGGREGATE_TYPE = AttributeKey.stringKey("lanes.aggregate.type");
    static final AttributeKey<String> AGGREGATE_ID = AttributeKey.stringKey("lanes.aggregate.id");
    static final AttributeKey<String> COMMAND_TYPE = AttributeKey.stringKey("lanes.command.type");
    static final AttributeKey<String> CAUSATION_ID = AttributeKey.stringKey("lanes.causation_id");
    static final AttributeKey<String> PROCESSOR_KIND = AttributeKey.stringKey("lanes.processor.kind");
    static final AttributeKey<Long> VERSION = AttributeKey.longKey("lanes.aggregate.version");

    /** The events that end a lane's steps: {@code load}, {@code decide}, {@code append}, {@code publish}. */
    static final String[] STEP_NAMES = Arrays.stream(MessageTrace.Step.values())
            .map(step -> step.name().toLowerCase(Locale.ROOT))
            .toArray(String[]::new);

    private final Tracer tracer;
    private final SpanClock clock = new SpanClock();

    OpenTelemetryTracing(Tracer tracer) {
        this.tracer = tracer;
    }

    @Override
    public MessageTrace send(CommandMessage command, ContextView context) {
        Context parent = parent(command.headers(), Context.current());
        SpanBuilder builder = span("send " + command.aggregateId().namedAggregate(), SpanKind.PRODUCER, parent, "send")
                .setAttribute(MESSAGE_ID, command.messageId())
                .setAttribute(CONVERSATION_ID, command.correlationId())
                .setAttribute(COMMAND_TYPE, command.command().getClass().getSimpleName());
        aggregate(builder, command.aggregateId());
        String cause = command.causationId();
        if (cause != null) {
            builder.setAttribute(CAUSATION_ID, cause);
        }
        return new SpanTrace(
                builder.setStartTimestamp(clock.nanos(), TimeUnit.NANOSECONDS).startSpan(), parent);
    }

    @Override
    public MessageTrace command(CommandMessage command) {
        Context parent = parent(command.headers(), Context.root());
        SpanBuilder builder = span(
                        "process " + command.aggregateId().namedAggregate(), SpanKind.CONSUMER, parent, "process")
                .setAttribute(MESSAGE_ID, command.messageId())
                .setAttribute(CONVERSATION_ID, command.correlationId())
                .setAttribute(COMMAND_TYPE, command.command().getClass().getSimpleName());
        aggregate(builder, command.aggregateId());
        return new LaneTrace(
                builder.setStartTimestamp(clock.nanos(), TimeUnit.NANOSECONDS).startSpan(), parent);
    }

    @Override
    public MessageTrace handling(String processor, String kind, DomainEventStream stream) {
        Context parent = parent(stream.headers(), Context.root());
        SpanBuilder builder = span("process " + processor, SpanKind.CONSUMER, parent, "process")
                .setAttribute(MESSAGE_ID, stream.id())
                .setAttribute(CONVERSATION_ID, stream.correlationId())
                .setAttribute(CAUSATION_ID, stream.causationId())
                .setAttribute(CONSUMER_GROUP, processor)
                .setAttribute(PROCESSOR_KIND, kind)
                .setAttribute(VERSION, (long) stream.version());
        aggregate(builder, stream.aggregateId());
        return new SpanTrace(
                builder.setStartTimestamp(clock.nanos(), TimeUnit.NANOSECONDS).startSpan(), parent);
    }

    @Override
    public MessageTrace publish(DomainEventStream stream, String system) {
        Context parent = parent(stream.headers(), Context.root());
        SpanBuilder builder = tracer.spanBuilder(
                        "publish " + stream.aggregateId().namedAggregate())
                .setSpanKind(SpanKind.PRODUCER)
                .setParent(parent)
                .setAttribute(MESSAGING_SYSTEM, system)
                .setAttribute(OPERATION_TYPE, "send")
                .setAttribute(OPERATION_NAME, "publish")
                .setAttribute(MESSAGE_ID, stream.id())
                .setAttribute(CONVERSATION_ID, stream.correlationId())
                .setAttribute(VERSION, (long) stream.version());
        aggregate(builder, stream.aggregateId());
        return new SpanTrace(
                builder.setStartTimestamp(clock.nanos(), TimeUnit.NANOSECONDS).startSpan(), parent);
    }

    private SpanBuilder span(String name, SpanKind kind, Context parent, String operation) {
        return tracer.spanBuilder(name)
                .setSpanKind(kind)
                .setParent(parent)
                .setAttribute(MESSAGING_SYSTEM, SYSTEM)
                .setAttribute(OPERATION_TYPE, operation)
                .setAttribute(OPERATION_NAME, operation);
    }

    private static void aggregate(SpanBuilder builder, AggregateId id) {
        String type = id.namedAggregate().toString();
        builder.setAttribute(DESTINATION, type)
                .setAttribute(AGGREGATE_TYPE, type)
                .setAttribute(AGGREGATE_ID, id.id());
    }

    /** The context the headers carry, if they carry a valid one; else {@code otherwise}. */
    private static Context parent(Map<String, String> headers, Context otherwise) {
        if (!headers.containsKey(MessageTracing.TRACEPARENT)) {
            return otherwise;
        }
        Context extracted =
                W3CTraceContextPropagator.getInstance().extract(Context.root(), headers, HeaderCarrier.INSTANCE);
        return Span.fromContext(extracted).getSpanContext().isValid() ? extracted : otherwise;
    }

    /** One span: its context replaces the trace context of the headers it is asked for; ended once. */
    private class SpanTrace implements MessageTrace {
        final Span span;
        final Context context;
        private boolean ended;

        SpanTrace(Span span, Context parent) {
            this.span = span;
            this.context = parent.with(span);
        }

        @Override
        public Map<String, String> headers(Map<String, String> headers) {
            Map<String, String> carried = new java.util.HashMap<>(headers);
            carried.keySet().removeAll(MessageTracing.TRACE_CONTEXT_HEADERS);
            W3CTraceContextPropagator.getInstance().inject(context, carried, HeaderCarrier.INSTANCE);
            return carried;
        }

        @Override
        public synchronized void end(@Nullable Throwable error) {
            if (ended) {
                return;
            }
            ended = true;
            if (error != null) {
                span.recordException(error);
                span.setStatus(io.opentelemetry.api.trace.StatusCode.ERROR, error.toString());
            }
            span.end(clock.nanos(), TimeUnit.NANOSECONDS);
        }
    }

    /** A command's attempt in its lane: the end of each step an event on its span. */
    private final class LaneTrace extends SpanTrace {
        LaneTrace(Span span, Context parent) {
            super(span, parent);
        }

        @Override
        public void step(Step step) {
            span.addEvent(STEP_NAMES[step.ordinal()], clock.nanos(), TimeUnit.NANOSECONDS);
        }
    }
}
