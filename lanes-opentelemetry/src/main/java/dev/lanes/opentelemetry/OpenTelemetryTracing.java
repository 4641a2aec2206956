package dev.lanes.opentelemetry;

import dev.lanes.api.AggregateId;
import dev.lanes.api.MaterializedNamedAggregate;
import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import dev.lanes.tracing.MessageTrace;
import dev.lanes.tracing.MessageTracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
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
    /** Span names and start attributes per aggregate type, made once per type. */
    private final ConcurrentMap<MaterializedNamedAggregate, Destination> destinations = new ConcurrentHashMap<>();
    /** {@code process <processor>} per processor, made once per processor. */
    private final ConcurrentMap<String, String> processorSpanNames = new ConcurrentHashMap<>();
    /** The trace contexts written lately, so that a message that stays in the process is not parsed. */
    private final WrittenContexts writtenContexts = new WrittenContexts();

    OpenTelemetryTracing(Tracer tracer) {
        this.tracer = tracer;
    }

    @Override
    public MessageTrace send(CommandMessage command, ContextView context) {
        Context parent = parent(command.headers(), Context.current());
        Destination destination = destination(command.aggregateId());
        Span span = destination
                .builder(tracer, destination.sendName, SpanKind.PRODUCER, parent, destination.send)
                .setAttribute(COMMAND_TYPE, command.command().getClass().getSimpleName())
                .setStartTimestamp(clock.nanos(), TimeUnit.NANOSECONDS)
                .startSpan();
        if (span.isRecording()) {
            commandAttributes(span, destination, command);
            String cause = command.causationId();
            if (cause != null) {
                span.setAttribute(CAUSATION_ID, cause);
            }
        }
        return new SpanTrace(span);
    }

    @Override
    public MessageTrace command(CommandMessage command) {
        Context parent = parent(command.headers(), Context.root());
        Destination destination = destination(command.aggregateId());
        Span span = destination
                .builder(tracer, destination.processName, SpanKind.CONSUMER, parent, destination.process)
                .setAttribute(COMMAND_TYPE, command.command().getClass().getSimpleName())
                .setStartTimestamp(clock.nanos(), TimeUnit.NANOSECONDS)
                .startSpan();
        if (span.isRecording()) {
            commandAttributes(span, destination, command);
        }
        return new LaneTrace(span);
    }

    @Override
    public MessageTrace handling(String processor, String kind, DomainEventStream stream) {
        Context parent = parent(stream.headers(), Context.root());
        Destination destination = destination(stream.aggregateId());
        String name = processorSpanNames.get(processor);
        if (name == null) {
            name = processorSpanNames.computeIfAbsent(processor, named -> "process " + named);
        }
        Span span = destination
                .builder(tracer, name, SpanKind.CONSUMER, parent, destination.process)
                .setStartTimestamp(clock.nanos(), TimeUnit.NANOSECONDS)
                .startSpan();
        if (span.isRecording()) {
            span.setAttribute(MESSAGE_ID, stream.id());
            span.setAttribute(CONVERSATION_ID, stream.correlationId());
            span.setAttribute(CAUSATION_ID, stream.causationId());
            span.setAttribute(CONSUMER_GROUP, processor);
            span.setAttribute(PROCESSOR_KIND, kind);
            span.setAttribute(VERSION, (long) stream.version());
            aggregate(span, destination, stream.aggregateId());
        }
        return new SpanTrace(span);
    }

    @Override
    public MessageTrace publish(DomainEventStream stream, String system) {
        Context parent = parent(stream.headers(), Context.root());
        Destination destination = destination(stream.aggregateId());
        Span span = tracer.spanBuilder(destination.publishName)
                .setSpanKind(SpanKind.PRODUCER)
                .setParent(parent)
                .setAttribute(MESSAGING_SYSTEM, system)
                .setAttribute(OPERATION_TYPE, "send")
                .setAttribute(OPERATION_NAME, "publish")
                .setAttribute(DESTINATION, destination.type)
                .setStartTimestamp(clock.nanos(), TimeUnit.NANOSECONDS)
                .startSpan();
        if (span.isRecording()) {
            span.setAttribute(MESSAGE_ID, stream.id());
            span.setAttribute(CONVERSATION_ID, stream.correlationId());
            span.setAttribute(VERSION, (long) stream.version());
            aggregate(span, destination, stream.aggregateId());
        }
        return new SpanTrace(span);
    }

    private Destination destination(AggregateId id) {
        MaterializedNamedAggregate type = id.namedAggregate();
        Destination known = destinations.get(type);
        return known != null ? known : destinations.computeIfAbsent(type, Destination::new);
    }

    private static void commandAttributes(Span span, Destination destination, CommandMessage command) {
        span.setAttribute(MESSAGE_ID, command.messageId());
        span.setAttribute(CONVERSATION_ID, command.correlationId());
        aggregate(span, destination, command.aggregateId());
    }

    private static void aggregate(Span span, Destination destination, AggregateId id) {
        span.setAttribute(AGGREGATE_TYPE, destination.type);
        span.setAttribute(AGGREGATE_ID, id.id());
    }

    /**
     * The context the headers carry, if they carry a valid one; else {@code otherwise}. A {@code traceparent} this
     * tracing wrote lately is not parsed again ({@link WrittenContexts}): the parent is the same remote span context.
     */
    private Context parent(Map<String, String> headers, Context otherwise) {
        String traceparent = headers.get(MessageTracing.TRACEPARENT);
        if (traceparent == null) {
            return otherwise;
        }
        if (!headers.containsKey(MessageTracing.TRACESTATE)) {
            SpanContext written = writtenContexts.parentOf(traceparent);
            if (written != null) {
                return Context.root().with(Span.wrap(written));
            }
        }
        Context extracted =
                W3CTraceContextPropagator.getInstance().extract(Context.root(), headers, HeaderCarrier.INSTANCE);
        return Span.fromContext(extracted).getSpanContext().isValid() ? extracted : otherwise;
    }

    /**
     * An aggregate type's span names and start attributes (those a sampler may decide on, after the messaging
     * conventions: system, operation, destination), made once per type.
     */
    private static final class Destination {
        final String type;
        final String sendName;
        final String processName;
        final String publishName;
        final Attributes send;
        final Attributes process;

        Destination(MaterializedNamedAggregate named) {
            this.type = named.toString();
            this.sendName = "send " + type;
            this.processName = "process " + type;
            this.publishName = "publish " + type;
            this.send = start("send");
            this.process = start("process");
        }

        private Attributes start(String operation) {
            return Attributes.of(
                    MESSAGING_SYSTEM, SYSTEM, OPERATION_TYPE, operation, OPERATION_NAME, operation, DESTINATION, type);
        }

        SpanBuilder builder(Tracer tracer, String name, SpanKind kind, Context parent, Attributes attributes) {
            return tracer.spanBuilder(name).setSpanKind(kind).setParent(parent).setAllAttributes(attributes);
        }
    }

    /**
     * One span, ended once: its context replaces the trace context of the headers it is asked for (formatted once, on
     * the first ask). The runtime calls one trace from one thread at a time.
     */
    private class SpanTrace implements MessageTrace {
        final Span span;
        private @Nullable TraceHeaders headers;
        private boolean ended;

        SpanTrace(Span span) {
            this.span = span;
        }

        @Override
        public Map<String, String> headers(Map<String, String> headers) {
            TraceHeaders mine = this.headers;
            if (mine == null) {
                mine = TraceHeaders.of(span.getSpanContext());
                this.headers = mine;
                writtenContexts.written(mine);
            }
            return mine.into(headers);
        }

        @Override
        public synchronized void end(@Nullable Throwable error) {
            if (ended) {
                return;
            }
            ended = true;
            if (error != null) {
                span.recordException(error);
                span.setStatus(StatusCode.ERROR, error.toString());
            }
            span.end(clock.nanos(), TimeUnit.NANOSECONDS);
        }
    }

    /** A command's attempt in its lane: the end of each step an event on its span (when it records). */
    private final class LaneTrace extends SpanTrace {
        LaneTrace(Span span) {
            super(span);
        }

        @Override
        public void step(Step step) {
            if (span.isRecording()) {
                span.addEvent(STEP_NAMES[step.ordinal()], clock.nanos(), TimeUnit.NANOSECONDS);
            }
        }
    }
}
