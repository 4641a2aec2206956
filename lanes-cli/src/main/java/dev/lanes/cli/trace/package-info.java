/**
 * Tracing for {@code lanes demo --trace}: the bank's spans through OpenTelemetry's SDK, a sample of its transfers kept
 * in memory and drawn as the report's waterfall, and optionally every span exported over OTLP.
 */
@NullMarked
package dev.lanes.cli.trace;

import org.jspecify.annotations.NullMarked;
