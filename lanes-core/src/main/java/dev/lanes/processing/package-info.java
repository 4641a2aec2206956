/**
 * Event processors (handlers, projections, snapshotters) and the {@link
 * dev.lanes.processing.CompositeEventDispatcher} that runs them: each processor is a consumer group on the domain
 * event bus and runs on the lane engine, so it sees each aggregate's streams in version order. Sagas are in {@link
 * dev.lanes.processing.saga}, dead letters in {@link dev.lanes.processing.deadletter}, processors fed from the store
 * in {@link dev.lanes.processing.tracking}.
 */
@NullMarked
package dev.lanes.processing;

import org.jspecify.annotations.NullMarked;
