package dev.lanes.dispatch;

import dev.lanes.api.AggregateId;
import dev.lanes.api.NamedAggregate;
import dev.lanes.lifecycle.ActivityLease;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * An exchange for the engine checks: it records how often it was acknowledged and rejected, and why.
 *
 * <p>Settlement codes ({@link #settlement()}): {@value #UNSETTLED} never settled, {@value #ACKNOWLEDGED} acknowledged
 * once, {@value #REJECTED} rejected once, {@value #SETTLED_TWICE} settled more than once (acknowledged and rejected, or
 * either twice).
 *
 * <p>The engine checks sit in the engine's own package (split across lanes-core and this module on the class path) to
 * reach its package-private lanes, envelopes and intake. The package keeps lanes-core's {@code package-info}: null-marked.
 */
final class StressExchange implements MessageExchange<String> {
    static final int UNSETTLED = 0;
    static final int ACKNOWLEDGED = 1;
    static final int REJECTED = 2;
    static final int SETTLED_TWICE = 3;

    static final NamedAggregate ORDER = NamedAggregate.of("sales", "order");
    static final AggregateId ORDER_1 = AggregateId.of(ORDER, "order-1");

    /** The envelope's number in its lane, 1 to 9: the lane checks write what they polled as digits. */
    final int id;

    private final AggregateId aggregateId;

    private final AtomicInteger acknowledgements = new AtomicInteger();
    private final AtomicInteger rejections = new AtomicInteger();
    private volatile @Nullable Throwable rejection;

    StressExchange(int id) {
        this(id, ORDER_1);
    }

    StressExchange(int id, AggregateId aggregateId) {
        this.id = id;
        this.aggregateId = aggregateId;
    }

    /** A queued envelope around a fresh exchange numbered {@code id}, as the intake admits it. */
    static Envelope<String> envelope(int id) {
        return new Envelope<>(new StressExchange(id), ActivityLease.NONE, 0L);
    }

    /** The number of the exchange {@code envelope} carries. */
    static int idOf(Envelope<String> envelope) {
        return ((StressExchange) envelope.exchange).id;
    }

    @Override
    public String message() {
        return "message-" + id;
    }

    @Override
    public AggregateId aggregateId() {
        return aggregateId;
    }

    @Override
    public void acknowledge() {
        acknowledgements.incrementAndGet();
    }

    @Override
    public void reject(Throwable reason) {
        rejection = reason;
        rejections.incrementAndGet();
    }

    int settlement() {
        int acks = acknowledgements.get();
        int rejects = rejections.get();
        if (acks + rejects > 1) {
            return SETTLED_TWICE;
        }
        return acks == 1 ? ACKNOWLEDGED : rejects == 1 ? REJECTED : UNSETTLED;
    }

    @Nullable
    Throwable rejection() {
        return rejection;
    }
}
