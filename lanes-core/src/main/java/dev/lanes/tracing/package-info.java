/**
 * The tracing SPI: where the runtime tells a tracer that a command is sent, that its lane handles it (load, decide,
 * append, publish) and that a processor handles an event stream, and where the tracer puts its context into the
 * message headers so that it travels with the command, its stored events, the bus and a saga's commands. Off ({@link
 * dev.lanes.tracing.MessageTracing#NONE}) unless bound: the {@code lanes-opentelemetry} module binds it to
 * OpenTelemetry ({@code LanesTracing.of(openTelemetry)}). Depends on the messages only.
 */
@NullMarked
package dev.lanes.tracing;

import org.jspecify.annotations.NullMarked;
