package dev.lanes.cli.run;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A request to end a run's load now and stop gracefully, as at the end of its duration: made once by the graceful
 * stop hook (Ctrl-C, SIGTERM), read by the run. The run then stops its runtime gracefully under its deadline, audits
 * and prints its report as usual. Thread-safe.
 */
public final class StopRequest {
    /** How long the hook waits for a command that is not running a load (parsing options, printing help). */
    private static final Duration IDLE = Duration.ofSeconds(10);

    private final CountDownLatch requested = new CountDownLatch(1);
    private volatile @Nullable String reason;
    private volatile Duration stopWithin = IDLE;

    /** Asks the run to stop; later requests change nothing. */
    public void request(String why) {
        if (reason == null) {
            reason = why;
        }
        requested.countDown();
    }

    public boolean isRequested() {
        return requested.getCount() == 0;
    }

    /** Why the stop was requested ("SIGINT (Ctrl-C)"), or null when it was not. */
    public @Nullable String reason() {
        return isRequested() ? reason : null;
    }

    /** Waits up to {@code nanos} for a request; true when there is one (or the thread was interrupted). */
    public boolean await(long nanos) {
        try {
            return requested.await(nanos, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    /**
     * Set by a run when its load starts: how long it may take, once asked, to stop, audit and print its report (its
     * shutdown deadline and a margin); the hook waits that long before it gives up.
     */
    public void stopsWithin(Duration duration) {
        this.stopWithin = duration;
    }

    public Duration stopWithin() {
        return stopWithin;
    }
}
