package dev.lanes.lifecycle;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the runtime gives its components: admission of work, and a channel for fatal faults. */
public interface RuntimeContext {

    /**
     * A lease for one unit of work, or {@code null} once admission has closed; the caller then hands the work back to
     * its source. Non-blocking.
     */
    @Nullable
    ActivityLease tryAcquire();

    /**
     * Reports an infrastructure fault the component cannot recover from; the runtime shuts down with it. Non-blocking;
     * never throws.
     */
    void reportFailure(Throwable failure);

    /**
     * Runs {@code action} once when the runtime begins to stop: when a graceful shutdown starts (before its quiet
     * period), or when a force or a fatal failure closes admission; at once if that already happened. A component uses
     * it to stop taking <em>new</em> work from outside while the work it admitted, and what follows from it, goes on.
     * The action runs on the stopping thread and must not block. Never runs for a {@link #standalone()} context.
     */
    default void whenStopping(Runnable action) {}

    /** A context for a component used on its own: admission never closes and faults are logged at ERROR. */
    static RuntimeContext standalone() {
        return StandaloneContext.INSTANCE;
    }
}

final class StandaloneContext implements RuntimeContext {
    static final StandaloneContext INSTANCE = new StandaloneContext();
    private static final Logger log = LoggerFactory.getLogger(StandaloneContext.class);

    private StandaloneContext() {}

    @Override
    public ActivityLease tryAcquire() {
        return ActivityLease.NONE;
    }

    @Override
    public void reportFailure(Throwable failure) {
        log.error("Fatal component failure outside a runtime", failure);
    }
}
