package dev.lanes.command;

/** How far a command must get before {@link CommandGateway#send} completes. */
public enum WaitStage {
    /**
     * Its aggregate's lane took it: no bound can refuse it any more, and a graceful stop processes it. (Acceptance by
     * an in-memory bus is not enough: the bus does not redeliver what a full lane hands back.)
     */
    SENT,
    /**
     * Its events were appended to the event store, and handed to the event bus unless a force stop came in between
     * (or it failed, with the reason; or it changed nothing: version 0).
     */
    PROCESSED,
    /** Every projection has handled the events it produced. */
    PROJECTED
}
