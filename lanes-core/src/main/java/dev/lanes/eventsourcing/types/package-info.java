/**
 * Stable type names for event payloads and the upcasters that read their older revisions: the {@link
 * dev.lanes.eventsourcing.types.EventTypes} registry (class to name and current revision, and back) and its chain of
 * {@link dev.lanes.eventsourcing.types.Upcaster}s. Independent of any data format: the codecs that use it (the
 * PostgreSQL store's and the Kafka bus's Jackson codecs, on JSON trees) choose the representation an upcaster reads, so
 * one registry serves the event store and the event bus alike.
 */
@NullMarked
package dev.lanes.eventsourcing.types;

import org.jspecify.annotations.NullMarked;
