/**
 * Process managers: stateful, long-running reactions to events of several aggregates, correlated by a business key,
 * with durable deadlines. See {@link dev.lanes.process.ProcessManager}.
 */
@NullMarked
package dev.lanes.process;

import org.jspecify.annotations.NullMarked;
