package dev.lanes.command;

import dev.lanes.command.StageNotReachedException.Reason;

/**
 * How one projection tells the senders waiting for {@link WaitStage#PROJECTED} how far it got. There is one per
 * projection, from {@link CommandResults#projection}, given to whoever runs the projection (the event dispatcher): it is
 * the only way from outside the command side to end a sender's wait, and it speaks for its projection only.
 *
 * <p>Thread-safety: any thread. Calls never block and never throw; an answer they trigger is emitted on the calling
 * thread.
 */
public interface ProjectionListener {

    /**
     * The projection handled the events of the command whose message id is {@code commandId} (possibly before the
     * command's lane reported them stored). A {@code PROJECTED} sender is answered once every projection of its type
     * handled them.
     */
    void projected(String commandId);

    /**
     * The projection gave up on the events of command {@code commandId} (they were parked): its {@code PROJECTED}
     * sender is told, with {@code error}, that the events are stored but not projected.
     */
    void failed(String commandId, Throwable error);

    /**
     * The projection stopped and handles nothing more: every {@code PROJECTED} wait on it whose events it has not
     * handled ends with a {@link StageNotReachedException} of {@code reason}, at once when its events are stored, else
     * when they are.
     */
    void stopped(Reason reason);
}
