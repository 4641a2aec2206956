package dev.lanes.dispatch;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * A link of a lane's queue. The queue is intrusive (an {@link Envelope} is its own node, the {@link Lane} its own
 * initial stub), so offering an exchange allocates nothing beyond its envelope.
 */
abstract class LaneNode {
    private static final VarHandle NEXT;

    static {
        try {
            NEXT = MethodHandles.lookup().findVarHandle(LaneNode.class, "next", LaneNode.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through NEXT
    private volatile @Nullable LaneNode next;

    /** Links {@code node} after this one; a reader that acquires the link sees the node's fields as written before. */
    final void linkNext(LaneNode node) {
        NEXT.setRelease(this, node);
    }

    /** Links {@code node} after this one without a fence: for a chain published later by a {@link #linkNext}. */
    final void linkNextPlain(LaneNode node) {
        NEXT.set(this, node);
    }

    /** Owner only, on a node it has moved past: links it to itself (ordered after the move), breaking the chain. */
    final void unlink() {
        NEXT.setRelease(this, this);
    }

    @Nullable
    final LaneNode nextNode() {
        return (LaneNode) NEXT.getAcquire(this);
    }
}
