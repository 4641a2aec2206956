package dev.lanes.dispatch;

import dev.lanes.dispatch.DispatcherMetrics.LaneRecorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Keeps a faulty metrics binding from ever breaking a lane: failures are logged once and ignored. */
final class SafeRecorder implements LaneRecorder {
    private static final Logger log = LoggerFactory.getLogger(SafeRecorder.class);
    private final LaneRecorder delegate;
    private final Object owner;
    private volatile boolean warned;

    SafeRecorder(LaneRecorder delegate, Object owner) {
        this.delegate = delegate;
        this.owner = owner;
    }

    @Override
    public void queueWait(long nanos) {
        try {
            delegate.queueWait(nanos);
        } catch (RuntimeException e) {
            warnOnce(e);
        }
    }

    @Override
    public void outcome(Outcome outcome, long handlerNanos) {
        try {
            delegate.outcome(outcome, handlerNanos);
        } catch (RuntimeException e) {
            warnOnce(e);
        }
    }

    @Override
    public void close() {
        try {
            delegate.close();
        } catch (RuntimeException e) {
            warnOnce(e);
        }
    }

    private void warnOnce(RuntimeException e) {
        if (!warned) {
            warned = true;
            log.warn("Metrics recorder of {} failed; further failures are ignored", owner, e);
        }
    }
}
