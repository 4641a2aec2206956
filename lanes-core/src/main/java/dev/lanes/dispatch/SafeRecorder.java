package dev.lanes.dispatch;

import dev.lanes.dispatch.DispatcherMetrics.LaneRecorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Keeps a faulty metrics binding from ever breaking a lane: failures are logged once and ignored; closes once. */
final class SafeRecorder implements LaneRecorder {
    private static final Logger log = LoggerFactory.getLogger(SafeRecorder.class);
    private final LaneRecorder delegate;
    private final Object owner;
    private volatile boolean warned;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

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
        if (!closed.compareAndSet(false, true)) {
            return; // a stop during prepare may close it twice
        }
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
