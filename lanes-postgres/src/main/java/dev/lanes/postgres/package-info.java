/**
 * PostgreSQL implementations of the {@link dev.lanes.eventsourcing.EventStore} and
 * {@link dev.lanes.eventsourcing.SnapshotStore} SPIs: JDBC over a HikariCP pool, every call run on a bounded scheduler
 * of the store's own so lane threads never block; payloads stored as {@code jsonb} through a pluggable
 * {@link dev.lanes.postgres.EventSerializer}; the schema created by versioned, idempotent {@link
 * dev.lanes.postgres.Migrations}.
 */
@NullMarked
package dev.lanes.postgres;

import org.jspecify.annotations.NullMarked;
