package dev.lanes.runtime;

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
}
