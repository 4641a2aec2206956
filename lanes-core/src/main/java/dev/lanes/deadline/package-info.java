/**
 * Durable deadlines: a command sent to an aggregate (or a process manager instance) at an instant, unless cancelled
 * first. {@link dev.lanes.deadline.Deadlines} schedules and cancels, a {@link dev.lanes.deadline.DeadlineStore} keeps
 * them (in memory, or in PostgreSQL with {@code lanes-postgres}), and a {@link dev.lanes.deadline.DeadlineRunner}
 * claims the due ones and sends them through the command gateway with the request id {@code deadline:<id>}, so a
 * deadline fired twice (a crash between sending and removing it) is applied once by the event store.
 */
@NullMarked
package dev.lanes.deadline;

import org.jspecify.annotations.NullMarked;
