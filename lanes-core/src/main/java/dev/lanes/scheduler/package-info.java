/**
 * Reactor schedulers per aggregate type ({@link dev.lanes.scheduler.AggregateSchedulers}): one cached {@link
 * reactor.core.scheduler.Scheduler} for each
 * materialized named aggregate, owned by the supplier that created it.
 */
@NullMarked
package dev.lanes.scheduler;

import org.jspecify.annotations.NullMarked;
