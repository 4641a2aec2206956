/**
 * OpenTelemetry spans for Lanes: binds the runtime's tracing SPI ({@link dev.lanes.tracing.MessageTracing}) to the
 * OpenTelemetry API, linking sends, command lanes, event handling and sagas through W3C trace context in the message
 * headers. Start at {@link dev.lanes.opentelemetry.LanesTracing}.
 */
@NullMarked
package dev.lanes.opentelemetry;

import org.jspecify.annotations.NullMarked;
