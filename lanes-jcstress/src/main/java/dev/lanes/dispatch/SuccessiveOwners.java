package dev.lanes.dispatch;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.infra.results.IIIIIIII_Result;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The state of the successive-owner checks ({@link DispatcherSuccessiveOwners}, {@link
 * DispatcherSuccessiveOwnersAsyncEnd}): a dispatcher with one lane, exchange 1 admitted and its lane's first owner
 * taken from the worker queue; the producer then delivers 2 and 3 and runs whatever it handed to the workers (the
 * intake's drain, which admits them, and a lane it made ready), so a producer whose offer found the lane idle becomes
 * its next owner at once.
 *
 * <p>Results ({@link #arbiter}): r1 the exchanges handled, in order, as digits. r2 their settlements as digits
 * ({@link StressExchange#settlement()}: 1 acknowledged once). r3 the lane's count, unclamped. r4 envelopes finished and
 * not subtracted (an owner field: 0 when no one owns the lane). r5 1 if the lane's current envelope (an owner field) is
 * set at the end. r6 owner faults: 1 if two handlers ran at once, plus 2 if an owner threw (a poll found no envelope
 * where the count promised one: the count is wrong). r7 admitted exchanges not freed (the dispatcher's {@code queued}).
 * r8 owners after the first (lane tasks run after it: 0 if the first owner drained all three).
 */
final class SuccessiveOwners {
    private final ManualSource source = new ManualSource();
    private final StressDispatchers.HandOff worker = new StressDispatchers.HandOff();
    private final StressExchange[] exchanges = {new StressExchange(1), new StressExchange(2), new StressExchange(3)};
    private final Sinks.Empty<Void> firstEnds = Sinks.empty();
    private final AtomicInteger sequence = new AtomicInteger();
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger laterOwners = new AtomicInteger();
    private final boolean firstEndsLater;
    private final AggregateDispatcher<String> dispatcher;
    private final Lane<String> lane;
    private final Runnable firstOwner;
    private volatile boolean overlapped;
    private volatile boolean threw;

    /**
     * @param firstEndsLater whether the handler of exchange 1 ends later, on the first owner's thread ({@link
     *     #endFirst}), instead of at once
     */
    @SuppressWarnings("unchecked")
    SuccessiveOwners(boolean firstEndsLater) {
        this.firstEndsLater = firstEndsLater;
        this.dispatcher = StressDispatchers.handingOff(source, this::handle, worker, exchanges.length);
        source.deliver(exchanges[0]);
        worker.admitDelivered(); // admitted: the lane is handed to the workers
        this.firstOwner = worker.take();
        this.lane = (Lane<String>) firstOwner;
    }

    /** The first owner's run of the lane. */
    void runFirstOwner() {
        firstOwner.run();
    }

    /** The first owner's handler of exchange 1 ends: the owner finishes it on this thread and lets go. */
    void endFirst() {
        firstEnds.tryEmitEmpty();
    }

    /**
     * A worker runs what was handed to the workers meanwhile, each task as the lane's next owner. An owner whose poll
     * finds no envelope where the count promised one throws; that is recorded, not rethrown.
     */
    void runHandedOff() {
        try {
            laterOwners.addAndGet(worker.runAll());
        } catch (RuntimeException ownerFault) {
            threw = true;
        }
    }

    /**
     * The producer delivers 2 and 3 and runs the intake's drain they handed off, which admits them; an offer that found
     * the lane idle made it the owner, and it drains at once.
     */
    void produce() {
        source.deliver(exchanges[1]);
        source.deliver(exchanges[2]);
        runHandedOff();
    }

    void arbiter(IIIIIIII_Result r) {
        runHandedOff(); // nothing should be left; a worker would run it
        r.r1 = sequence.get();
        r.r2 = exchanges[0].settlement() * 100 + exchanges[1].settlement() * 10 + exchanges[2].settlement();
        r.r3 = LaneOwner.pending(lane);
        r.r4 = LaneOwner.finished(lane);
        r.r5 = lane.current != null ? 1 : 0;
        r.r6 = (overlapped ? 1 : 0) + (threw ? 2 : 0);
        r.r7 = dispatcher.stats().queued();
        r.r8 = laterOwners.get();
    }

    private Mono<Void> handle(MessageExchange<String> exchange) {
        if (inside.getAndIncrement() != 0) {
            overlapped = true;
        }
        int id = ((StressExchange) exchange).id;
        sequence.updateAndGet(handled -> handled * 10 + id);
        inside.decrementAndGet();
        return id == 1 && firstEndsLater ? firstEnds.asMono() : Mono.empty();
    }
}
