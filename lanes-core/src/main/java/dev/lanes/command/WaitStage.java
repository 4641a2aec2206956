package dev.lanes.command;

/** How far a command must get before {@link CommandGateway#send} completes. */
public enum WaitStage {
    /** Accepted by the command bus. */
    SENT,
    /** Its events were appended and published (or it failed, with the reason). */
    PROCESSED,
    /** Every projection has handled the events it produced. */
    PROJECTED
}
