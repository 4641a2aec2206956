package dev.lanes.lifecycle;

import java.util.List;
import reactor.core.publisher.Mono;

/**
 * A part of the runtime with a one-way lifecycle: {@code prepare -> start -> quiesce -> stopGracefully}, or {@code
 * forceStop} at any point. Construction is inert: nothing is subscribed or started before {@link #prepare}.
 *
 * <p>A call in the wrong state throws {@link IllegalStateException} naming the component and its state; there is no
 * restart.
 */
public interface RuntimeComponent {

    /** A name for logs, reports and error messages. */
    String name();

    /** Acquires sources (subscribes, without demand) and processes nothing. Lazy: runs on subscription. */
    Mono<Void> prepare(RuntimeContext context);

    /** Begins processing. */
    void start();

    /** Closes intake: no new work is taken, admitted work goes on. Prompt and idempotent. */
    void quiesce();

    /**
     * Closes intake if not yet closed, drains admitted work and releases resources; the shared termination completes
     * when the last admitted unit of work has finished. Lazy and cached: every call returns the same termination.
     */
    Mono<Void> stopGracefully();

    /**
     * Stops at once: in-flight work is cancelled, queued work is handed back to its source. Prompt, non-blocking,
     * idempotent, and safe before {@link #prepare}.
     */
    void forceStop();

    /**
     * Whether work this component took holds no activity lease yet: delivered by its source and on its way to
     * admission (queued for a drain, gathered in a burst), not counted by the runtime. While it is, the runtime's quiet
     * period does not end, so a graceful shutdown does not close admission, and quiesce the component, under it. Any
     * thread; cheap (the runtime asks it at each quiet check); never throws. False unless a component takes work that
     * way.
     */
    default boolean holdsUnleasedWork() {
        return false;
    }

    /**
     * Several components run as one, owning a resource they share (typically their scheduler supplier): prepare, start
     * and quiesce in order; a graceful stop quiesces every member, drains them in reverse order, then stops {@code
     * owned} once; a force forces the members in reverse order, then {@code owned}. A member's failure does not skip
     * the others: every step runs, and the first failure is the result (later ones suppressed).
     *
     * <p>Give the members a non-owning view of {@code owned} (for a scheduler supplier, {@code
     * AggregateSchedulers.borrowed}) when they would otherwise stop it themselves.
     *
     * @param name the group's name, for logs and reports
     * @param members the components, in start order
     * @param owned what the group stops after its members drained
     */
    static RuntimeComponent group(String name, List<? extends RuntimeComponent> members, ForceStoppable owned) {
        return new ComponentGroup(name, members, owned);
    }
}
