package dev.lanes.lifecycle;

/**
 * Something with both stop verbs: the shared graceful stop of {@link GracefullyStoppable}, and a force stop that works
 * at any time, even while a graceful stop is running.
 */
public interface ForceStoppable extends GracefullyStoppable {

    /**
     * Releases everything at once: running work is cancelled or interrupted, queued work dropped. Takes over a graceful
     * stop that is still running. Idempotent and non-blocking.
     */
    void forceStop();
}
