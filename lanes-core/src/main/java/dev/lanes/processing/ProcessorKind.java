package dev.lanes.processing;

/** What an event processor is for; decides how the runtime waits for it. */
public enum ProcessorKind {
    /** Side effects (notifications, integrations). */
    HANDLER,
    /** Read models; a sender waiting for {@code PROJECTED} waits for every projection of the aggregate type. */
    PROJECTION,
    /** Reacts to events with commands. */
    SAGA,
    /** Saves snapshots of aggregates. */
    SNAPSHOTTER
}
