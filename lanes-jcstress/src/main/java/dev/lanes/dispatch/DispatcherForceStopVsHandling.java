package dev.lanes.dispatch;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import reactor.core.publisher.Mono;

/**
 * A whole dispatcher: {@code forceStop()} racing with the admission and handling of one exchange whose handler ends at
 * once. The source actor delivers the exchange; on the immediate scheduler that admits it, drains its lane and calls the
 * handler on the same thread ({@link StressDispatchers#inline}).
 *
 * <p>r1: the exchange's settlement ({@link StressExchange#settlement()}: 1 acknowledged, 2 rejected, 0 never, 3 more
 * than once). r2: handler calls. r3: how it was rejected: 0 not, {@value #STOPPING} refused at admission ({@code
 * STOPPING}), {@value #FORCED_UNSTARTED} force-rejected and counted as rejected (its handler had not started), {@value
 * #FORCED_CANCELLED} force-rejected and counted as cancelled (its handler had started), {@value #OTHER} any other way.
 */
@JCStressTest
@Description("forceStop racing with an exchange's admission and handling: the exchange is settled exactly once,"
        + " acknowledged xor rejected")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "handled and acknowledged before the stop")
@Outcome(id = "2, 0, 1", expect = ACCEPTABLE, desc = "stop before admission: refused with STOPPING, never handled")
@Outcome(
        id = "2, 0, 2",
        expect = ACCEPTABLE,
        desc = "stop after admission, before the handler: rejected FORCED, never handled")
@Outcome(
        id = "2, 1, 3",
        expect = ACCEPTABLE,
        desc = "stop while the handler ran: rejected FORCED as cancelled; the source redelivers (at least once)")
@Outcome(
        id = "2, 1, 2",
        expect = ACCEPTABLE_INTERESTING,
        desc = "the handler ran, yet the stop counted the exchange as rejected before handling: its isStarted() read"
                + " came before the owner's tryStart, its settle after")
@Outcome(id = "3, .*", expect = FORBIDDEN, desc = "settled twice: acknowledged and rejected")
@Outcome(id = "0, .*", expect = FORBIDDEN, desc = "never settled: the source waits forever")
@Outcome(id = "1, 0, .*", expect = FORBIDDEN, desc = "acknowledged without its handler")
@Outcome(id = ".*, [2-9], .*", expect = FORBIDDEN, desc = "the handler ran twice")
@Outcome(expect = FORBIDDEN, desc = "rejected for another reason, or counted as cancelled without its handler")
@State
public class DispatcherForceStopVsHandling {
    static final int STOPPING = 1;
    static final int FORCED_UNSTARTED = 2;
    static final int FORCED_CANCELLED = 3;
    static final int OTHER = 4;

    private final AtomicInteger handlerCalls = new AtomicInteger();
    private final ManualSource source = new ManualSource();
    private final StressExchange exchange = new StressExchange(1);
    private final AggregateDispatcher<String> dispatcher = StressDispatchers.inline(source, ignored -> {
        handlerCalls.incrementAndGet();
        return Mono.empty();
    });

    @Actor
    public void source() {
        source.deliver(exchange);
    }

    @Actor
    public void forceStop() {
        dispatcher.forceStop();
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r1 = exchange.settlement();
        r.r2 = handlerCalls.get();
        r.r3 = rejectionKind(exchange, dispatcher.stats());
    }

    static int rejectionKind(StressExchange exchange, DispatcherStats stats) {
        if (!(exchange.rejection() instanceof ExchangeRejectedException rejected)) {
            return exchange.rejection() == null ? 0 : OTHER;
        }
        if (rejected.reason() == ExchangeRejectedException.Reason.STOPPING) {
            return STOPPING;
        }
        if (rejected.reason() != ExchangeRejectedException.Reason.FORCED) {
            return OTHER;
        }
        return stats.cancelled() == 1 ? FORCED_CANCELLED : stats.rejected() == 1 ? FORCED_UNSTARTED : OTHER;
    }
}
