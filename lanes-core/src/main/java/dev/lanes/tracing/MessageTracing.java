package dev.lanes.tracing;

import dev.lanes.messaging.CommandMessage;
import dev.lanes.messaging.DomainEventStream;
import java.util.Set;
import reactor.util.context.ContextView;

/**
 * The tracing SPI of the runtime; {@link #NONE} unless bound with {@code Lanes.Builder#tracing}. With {@code NONE} the
 * runtime calls nothing here and copies no header: tracing off costs one reference comparison per message.
 *
 * <p>Each call starts the trace of one message and returns it; the runtime ends it exactly once ({@link
 * MessageTrace#end}). A tracer carries its context in the message headers ({@link MessageTrace#headers}): the gateway
 * sends the command with the headers of its send trace, a lane stores and publishes the command's events with the
 * headers of its lane trace, and a processor hands its functions the stream with the headers of its handling trace, so
 * that a saga's commands continue it ({@link #TRACE_CONTEXT_HEADERS} are on every saga's propagation list).
 *
 * <p><b>Threading.</b> Called on the sender's subscribing thread ({@link #send}) and on lane workers ({@link #command},
 * {@link #handling}), concurrently for different messages: implementations must be thread-safe, must not block and
 * must not throw (what one throws fails the message it traces).
 */
public interface MessageTracing {

    /** No tracing: the runtime skips every call. */
    MessageTracing NONE = new MessageTracing() {
        @Override
        public MessageTrace send(CommandMessage command, ContextView context) {
            return MessageTrace.NONE;
        }

        @Override
        public MessageTrace command(CommandMessage command) {
            return MessageTrace.NONE;
        }

        @Override
        public MessageTrace handling(String processor, String kind, DomainEventStream stream) {
            return MessageTrace.NONE;
        }

        @Override
        public String toString() {
            return "MessageTracing.NONE";
        }
    };

    /** The W3C trace-context header that names the parent span ({@code traceparent}). */
    String TRACEPARENT = "traceparent";

    /** The W3C trace-context header with vendor-specific trace state ({@code tracestate}). */
    String TRACESTATE = "tracestate";

    /**
     * The W3C trace-context headers: a saga's commands carry them on from the stream that caused them, whatever else
     * its propagation list names.
     */
    Set<String> TRACE_CONTEXT_HEADERS = Set.of(TRACEPARENT, TRACESTATE);

    /**
     * A send through the gateway starts, when its {@code Mono} is subscribed, before the dispatch interceptors; it ends
     * when the send's {@code Mono} ends (the command reached the stage the sender waits for, or failed).
     *
     * @param context the sender's Reactor context
     */
    MessageTrace send(CommandMessage command, ContextView context);

    /**
     * The command's lane takes it (one attempt); the trace marks the end of each {@link MessageTrace.Step} it reaches
     * and ends when the attempt ends. The events it appends carry the headers of this trace.
     */
    MessageTrace command(CommandMessage command);

    /**
     * A processor handles a stream (one attempt): its functions get the stream with the headers of this trace; it ends
     * when they all ended.
     *
     * @param kind the processor's kind, lower case ({@code projection}, {@code saga}, ...)
     */
    MessageTrace handling(String processor, String kind, DomainEventStream stream);

    /**
     * A lane publishes {@code stream} on a bus outside the process ({@code system}: {@code kafka}): the produce hop,
     * from the hand-over to the bus's acknowledgement; the bus carries the stream with the headers of this trace, so
     * the processors that take it from the bus continue it. Not called for the in-process bus. Traces nothing unless
     * implemented.
     *
     * @param system the bus's {@code messaging.system}
     */
    default MessageTrace publish(DomainEventStream stream, String system) {
        return MessageTrace.NONE;
    }
}
