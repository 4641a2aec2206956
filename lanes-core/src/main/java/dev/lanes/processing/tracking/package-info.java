/**
 * Tracking processors: an event processor fed from the event store's global order instead of the bus, from a
 * checkpoint, split into segments that running instances claim and share; and the operations on them ({@link
 * dev.lanes.processing.tracking.TrackingOperations}: list, pause, resume, reset, seek).
 */
@NullMarked
package dev.lanes.processing.tracking;

import org.jspecify.annotations.NullMarked;
