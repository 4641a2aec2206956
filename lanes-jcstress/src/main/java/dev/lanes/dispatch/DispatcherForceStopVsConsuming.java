package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
import reactor.core.publisher.Mono;

/**
 * A whole dispatcher: {@code forceStop()} walking a lane (from its oldest node that may be unsettled) while the lane's
 * owner consumes it. Four exchanges are admitted to one lane before the race; the worker actor drains it with a handler
 * that ends at once, linking each node it moves past to itself; the other actor force-stops the dispatcher, whose walk
 * starts again from the lane's oldest node whenever it meets such a self-link. Every exchange is settled exactly once:
 * acknowledged by the owner or rejected by the stop; the stop never rejects one the owner acknowledged, never misses
 * one the owner did not reach, and the owner stops at the first one the stop settled.
 *
 * <p>r1: the settlements of exchanges 1 to 4, as digits ({@link StressExchange#settlement()}: 1 acknowledged, 2
 * rejected, 0 never, 3 more than once). r2: handler calls. r3: admitted exchanges not freed (the dispatcher's {@code
 * queued}: negative if a slot was freed twice). r4: exchanges counted as handled, rejected or cancelled, in all.
 */
@JCStressTest
@Description("forceStop walking a lane while its owner consumes and self-links the nodes: every exchange settled"
        + " exactly once, acknowledged in order up to where the stop took over")
@Outcome(id = "1111, 4, 0, 4", expect = ACCEPTABLE, desc = "the owner handled all four before the stop")
@Outcome(
        id = "(1112, [34]|1122, [23]|1222, [12]|2222, [01]), 0, 4",
        expect = ACCEPTABLE,
        desc = "the owner acknowledged a prefix; the stop rejected the rest (the first of them cancelled if its handler"
                + " had started)")
@Outcome(id = "\\d*0\\d*, .*", expect = FORBIDDEN, desc = "an exchange never settled: the stop missed it")
@Outcome(id = "\\d*3\\d*, .*", expect = FORBIDDEN, desc = "an exchange settled twice")
@Outcome(
        id = "\\d*2\\d*1\\d*, .*",
        expect = FORBIDDEN,
        desc = "an exchange acknowledged after an earlier one was rejected: the owner went on past the stop")
@Outcome(expect = FORBIDDEN, desc = "a handler called for nothing or twice, a slot freed twice or never, a miscount")
@State
public class DispatcherForceStopVsConsuming {
    static final int EXCHANGES = 4;

    private final AtomicInteger handlerCalls = new AtomicInteger();
    private final ManualSource source = new ManualSource();
    private final StressDispatchers.HandOff worker = new StressDispatchers.HandOff();
    private final StressExchange[] exchanges = new StressExchange[EXCHANGES];
    private final AggregateDispatcher<String> dispatcher = StressDispatchers.handingOff(
            source,
            ignored -> {
                handlerCalls.incrementAndGet();
                return Mono.empty();
            },
            worker,
            EXCHANGES);
    private final Runnable owner;

    public DispatcherForceStopVsConsuming() {
        for (int i = 0; i < EXCHANGES; i++) {
            exchanges[i] = new StressExchange(i + 1);
            source.deliver(exchanges[i]);
        }
        worker.admitDelivered(); // the first makes the lane ready; the others are counted behind it
        owner = worker.take();
    }

    @Actor
    public void worker() {
        owner.run();
    }

    @Actor
    public void forceStop() {
        dispatcher.forceStop();
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
        int settlements = 0;
        for (StressExchange exchange : exchanges) {
            settlements = settlements * 10 + exchange.settlement();
        }
        DispatcherStats stats = dispatcher.stats();
        r.r1 = settlements;
        r.r2 = handlerCalls.get();
        r.r3 = stats.queued();
        r.r4 = (int) (stats.handled() + stats.rejected() + stats.cancelled());
    }
}
