/**
 * Event processors (handlers, projections, sagas, snapshotters) and the {@link
 * dev.lanes.processing.CompositeEventDispatcher} that runs them: each processor is a consumer group on the domain
 * event bus and runs on the lane engine, so it sees each aggregate's streams in version order.
 */
@NullMarked
package dev.lanes.processing;

import org.jspecify.annotations.NullMarked;
