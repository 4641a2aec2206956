/**
 * The event store and snapshot store SPIs, their exceptions and in-memory implementations. Write consistency comes
 * from here: an append names the version it expects to create, and the store refuses a version that is taken.
 */
@NullMarked
package dev.lanes.eventsourcing;

import org.jspecify.annotations.NullMarked;
